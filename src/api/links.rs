//! What may be opened in a browser or downloaded: http and https URLs only, checked before any
//! process is started, and never handed to a shell.

use url::Url;

pub const MAX_URL_LEN: usize = 2048;

/// Why a link was refused, shown to the user as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refused to open link: {0}")]
pub struct LinkRefused(pub String);

/// Accepts only absolute http/https URLs with a host and no embedded credentials.
pub fn validate_link(raw: &str) -> Result<Url, LinkRefused> {
    if raw.is_empty() {
        return Err(LinkRefused("the link is empty".into()));
    }
    if raw.len() > MAX_URL_LEN {
        return Err(LinkRefused(format!(
            "the link is longer than {MAX_URL_LEN} bytes"
        )));
    }
    // The URL parser silently drops tabs and newlines; a link carrying any control character
    // or bidi override was tampered with, so refuse it rather than repair it.
    if !super::sanitize::is_clean(raw) || raw.contains(' ') {
        return Err(LinkRefused(
            "the link contains control characters or spaces".into(),
        ));
    }
    // The URL parser "repairs" forms like `https:///host` or `https:\\host`; a link must
    // already be in the plain `scheme://host` form.
    let lower = raw.get(..8).unwrap_or(raw).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &raw[8..]
    } else if lower.starts_with("http://") {
        &raw[7..]
    } else {
        let scheme = raw.split(':').next().unwrap_or("");
        return Err(LinkRefused(
            if scheme.len() < raw.len() && !scheme.is_empty() {
                format!(
                    "scheme `{}` is not http or https",
                    super::sanitize::sanitize_with_limit(scheme, 32)
                )
            } else {
                "not an absolute http or https URL".into()
            },
        ));
    };
    if rest.starts_with(['/', '\\']) || rest.is_empty() {
        return Err(LinkRefused("the link has no host".into()));
    }
    let url = Url::parse(raw).map_err(|e| LinkRefused(format!("not an absolute URL ({e})")))?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(LinkRefused(format!(
                "scheme `{}` is not http or https",
                super::sanitize::sanitize_with_limit(other, 32)
            )));
        }
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(LinkRefused("the link has no host".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(LinkRefused(
            "the link carries a user name or password".into(),
        ));
    }
    Ok(url)
}

/// Links that must never be opened or downloaded, one of each kind issue 4 names: a local
/// file, a Windows path, an option for the opener, script and protocol-handler schemes, SMB,
/// embedded credentials, an escape sequence, and an over-long URL. Shared by the link tests here and in `tests/`.
pub fn hostile_links() -> Vec<String> {
    vec![
        "file:///etc/passwd".into(),
        "C:\\Windows\\System32\\calc.exe".into(),
        "-a Calculator".into(),
        "javascript:alert(1)".into(),
        "ms-msdt:/id PCWDiagnostic /skip force".into(),
        "smb://h/s".into(),
        "https://u:p@x.example/".into(),
        "https://x.example/\u{1b}]0;t\u{07}".into(),
        format!("https://x.example/{}", "a".repeat(5000)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_and_https_pass() {
        assert!(validate_link("https://lora-hub.example.com/models/1").is_ok());
        assert!(validate_link("http://127.0.0.1:8787/files/a.png").is_ok());
        for bad in hostile_links()
            .iter()
            .map(String::as_str)
            .chain(["https:///nohost", ""])
        {
            assert!(validate_link(bad).is_err(), "{bad:?} should be refused");
        }
        let long = format!("https://x.example/{}", "a".repeat(MAX_URL_LEN));
        assert!(validate_link(&long).is_err());
    }
}
