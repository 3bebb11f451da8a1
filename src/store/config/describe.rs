//! `gendash config show`: every setting with where it came from; the token only as
//! `<redacted>`.

use super::{Settings, TokenOrigin};

impl Settings {
    /// `[keys]` on one line: `open = enter o, quit = x`.
    fn describe_keys(&self) -> String {
        if self.keys.is_empty() {
            return "(built in; gendash keys lists them)".to_string();
        }
        self.keys
            .iter()
            .map(|(action, keys)| {
                let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
                format!("{action} = {}", keys.join(" "))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The lines of `gendash config show`; the token appears only as `<redacted>`.
    pub fn describe(&self) -> Vec<String> {
        let src = |k: &str| {
            self.sources
                .get(k)
                .map_or_else(String::new, ToString::to_string)
        };
        let mut lines = vec![
            format!(
                "config file: {}{}",
                self.config_file.display(),
                if self.config_file_found {
                    ""
                } else {
                    " (not found)"
                }
            ),
            format!("profile: {}", self.profile.as_deref().unwrap_or("(none)")),
        ];
        for (k, v) in self.values() {
            lines.push(format!("{k:<22} = {v:<40}  # {}", src(k)));
        }
        lines
    }

    /// Every resolved key with its value as `config show` writes it (the token redacted):
    /// with no file, no variables and no flags, the defaults the manual lists.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        let base = self
            .base_url
            .as_ref()
            .map_or_else(|| "(not set)".into(), ToString::to_string);
        let token = match (&self.token, &self.token_origin) {
            (None, _) if self.token_problem.is_some() => {
                format!(
                    "(unreadable: {})",
                    self.token_problem.as_deref().unwrap_or("")
                )
            }
            (None, _) => "(not set)".to_string(),
            (Some(_), Some(TokenOrigin::File(p))) => {
                format!("<redacted> (read from {})", p.display())
            }
            (Some(_), Some(TokenOrigin::Command(c))) => format!("<redacted> (printed by `{c}`)"),
            (Some(_), _) => "<redacted>".to_string(),
        };
        vec![
            ("base_url", base),
            ("token", token),
            (
                "poll_interval",
                format!("{}s", self.poll_interval.as_secs_f64()),
            ),
            (
                "stall_after",
                format!("{}s", self.stall_after.as_secs_f64()),
            ),
            (
                "request_timeout",
                format!("{}s", self.request_timeout.as_secs_f64()),
            ),
            ("failure_statuses", self.failure_statuses.join(", ")),
            ("allow_insecure_http", self.allow_insecure_http.to_string()),
            ("categories", self.categories.join(", ")),
            ("bell", self.bell.to_string()),
            (
                "on_complete",
                self.on_complete
                    .as_ref()
                    .map_or_else(|| "(none)".to_string(), |argv| format!("{argv:?}")),
            ),
            (
                "desktop_notifications",
                self.desktop_notifications.to_string(),
            ),
            (
                "max_concurrent_polls",
                self.max_concurrent_polls.to_string(),
            ),
            ("image_preview", self.image_preview.name().to_string()),
            ("theme", self.theme.name().to_string()),
            (
                "styles",
                if self.styles.is_empty() {
                    "(the theme's)".to_string()
                } else {
                    self.styles.keys().cloned().collect::<Vec<_>>().join(", ")
                },
            ),
            ("keys", self.describe_keys()),
            ("download_dir", self.download_dir.display().to_string()),
            (
                "download_template",
                self.download_template.as_str().to_string(),
            ),
            ("auto_download", self.auto_download.to_string()),
        ]
    }
}
