//! Opening links in the user's browser: only http/https (checked by `validate_link`), the URL
//! passed as one argument to a program started directly — never through a shell.

use crate::api::links::validate_link;
use url::Url;

/// Something that can open a checked URL; injected so tests can record calls.
pub trait Opener: Send + Sync {
    fn launch(&self, url: &Url) -> Result<(), String>;
}

/// Opens with `GENDASH_OPENER` if set, else the platform's opener (`xdg-open`, `open`).
pub struct SystemOpener;

impl Opener for SystemOpener {
    fn launch(&self, url: &Url) -> Result<(), String> {
        let program = std::env::var("GENDASH_OPENER")
            .ok()
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| {
                if cfg!(target_os = "macos") {
                    "open".into()
                } else {
                    "xdg-open".into()
                }
            });
        let mut child = std::process::Command::new(&program)
            .arg(url.as_str())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        // Reap it in the background so no zombie is left.
        std::thread::spawn(move || child.wait());
        Ok(())
    }
}

/// Checks `raw` and opens it; the error explains a refusal.
pub fn open_link(opener: &dyn Opener, raw: &str) -> Result<String, String> {
    let url = validate_link(raw).map_err(|e| e.to_string())?;
    opener.launch(&url)?;
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl Opener for Recorder {
        fn launch(&self, url: &Url) -> Result<(), String> {
            self.0
                .lock()
                .map_err(|e| e.to_string())?
                .push(url.to_string());
            Ok(())
        }
    }

    #[test]
    fn only_http_links_reach_the_opener() {
        let rec = Recorder::default();
        for raw in crate::api::links::hostile_links() {
            let reason = open_link(&rec, &raw).expect_err(&raw);
            assert!(reason.starts_with("refused to open link: "), "{reason}");
            assert!(reason.len() > "refused to open link: ".len());
        }
        assert!(
            rec.0.lock().expect("lock").is_empty(),
            "nothing was launched"
        );
        assert_eq!(
            open_link(&rec, "https://lora-hub.example.com/m/1"),
            Ok("https://lora-hub.example.com/m/1".into())
        );
        assert_eq!(rec.0.lock().expect("lock").len(), 1);
    }
}
