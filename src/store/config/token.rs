//! Where the token comes from: `GENDASH_TOKEN`, a profile's or the top level's `token`,
//! `token_file` or `token_command` (run without a shell), else the file `config set-token`
//! writes. Files holding a token that others can read are warned about.

use super::schema::{FileSettings, expand_home};
use super::values::CommandSpec;
use super::{ConfigError, EnvLookup, Mismatch, Outside, Source, TokenLevel, TokenOrigin};
use crate::api::Secret;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The token: environment, then the profile's, then the top level's.
pub(super) fn resolve_token(
    env: EnvLookup<'_>,
    profile: Option<&FileSettings>,
    profile_name: Option<&str>,
    file: &FileSettings,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(Option<Secret>, Option<TokenOrigin>, Source), ConfigError> {
    if let Some(t) = env("GENDASH_TOKEN") {
        return Ok((
            Some(Secret::new(t.trim())),
            Some(TokenOrigin::Inline),
            Source::Env("GENDASH_TOKEN"),
        ));
    }
    if let Some(p) = profile {
        let name = profile_name.unwrap_or_default();
        if let Some((t, origin)) = token_at_level(p, path, &format!("profile {name}"), warnings)? {
            return Ok((Some(t), Some(origin), Source::Profile(name.to_string())));
        }
    }
    if let Some((t, origin)) = token_at_level(file, path, "top level", warnings)? {
        return Ok((Some(t), Some(origin), Source::TopLevel));
    }
    // Last: the file `gendash config set-token` writes beside the config file.
    let default_file = default_token_file(path, profile_name);
    if let Ok(text) = std::fs::read_to_string(&default_file) {
        let token = text.lines().next().unwrap_or("").trim().to_string();
        if !token.is_empty() {
            if let Some(w) = loose_permissions(&default_file) {
                warnings.push(w);
            }
            return Ok((
                Some(Secret::new(token)),
                Some(TokenOrigin::File(default_file)),
                Source::SetToken,
            ));
        }
    }
    Ok((None, None, Source::Default))
}

/// Where `gendash config set-token` keeps the token: beside the config file, `token` or
/// `token-<profile>`.
pub fn default_token_file(config_file: &Path, profile: Option<&str>) -> PathBuf {
    let dir = config_file.parent().unwrap_or(Path::new("."));
    match profile {
        Some(p) => dir.join(format!("token-{p}")),
        None => dir.join("token"),
    }
}

/// Writes a token file readable by its owner only (0600), atomically: a temporary file created
/// with that mode from the start, synced, then renamed into place.
pub fn write_token_file(path: &Path, token: &Secret) -> std::io::Result<()> {
    crate::store::atomic::write_atomic(
        path,
        format!("{}\n", token.expose()).as_bytes(),
        Some(0o600),
    )
}

/// The token a level supplies, if any; more than one way at one level is an error.
fn token_at_level(
    level: &FileSettings,
    path: &Path,
    what: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<(Secret, TokenOrigin)>, ConfigError> {
    check_one_way(level, path, what)?;
    read_level(level, warnings)
}

/// More than one way to give the token at one level is a mistake in the file itself.
pub fn check_one_way(level: &FileSettings, path: &Path, what: &str) -> Result<(), ConfigError> {
    let ways = usize::from(level.token.is_some())
        + usize::from(level.token_file.is_some())
        + usize::from(level.token_command.is_some());
    if ways > 1 {
        return Err(ConfigError::TokenTwice {
            path: path.to_path_buf(),
            level: what.to_string(),
        });
    }
    Ok(())
}

/// The token this level gives, read from where it says.
fn read_level(
    level: &FileSettings,
    warnings: &mut Vec<String>,
) -> Result<Option<(Secret, TokenOrigin)>, ConfigError> {
    if let Some(t) = &level.token {
        return Ok(Some((t.clone(), TokenOrigin::Inline)));
    }
    if let Some(file) = &level.token_file {
        let file = expand_home(file);
        let text =
            std::fs::read_to_string(&file).map_err(|e| ConfigError::TokenFileUnreadable {
                path: file.clone(),
                source: Arc::new(e),
            })?;
        if let Some(w) = loose_permissions(&file) {
            warnings.push(w);
        }
        let token = text.lines().next().unwrap_or("").trim().to_string();
        if token.is_empty() {
            return Err(ConfigError::TokenFileEmpty { path: file });
        }
        return Ok(Some((Secret::new(token), TokenOrigin::File(file))));
    }
    if let Some(cmd) = &level.token_command {
        return Ok(Some((
            run_token_command(cmd)?,
            TokenOrigin::Command(cmd.0.join(" ")),
        )));
    }
    Ok(None)
}

/// Runs the token command directly (no shell) and takes the first line of its output.
fn run_token_command(cmd: &CommandSpec) -> Result<Secret, ConfigError> {
    let program = &cmd.0[0];
    let output = std::process::Command::new(program)
        .args(&cmd.0[1..])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| ConfigError::TokenCommandDidNotRun {
            program: program.clone(),
            source: Arc::new(e),
        })?;
    if !output.status.success() {
        return Err(ConfigError::TokenCommandFailed {
            program: program.clone(),
            status: output.status,
        });
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        return Err(ConfigError::TokenCommandSilent {
            program: program.clone(),
        });
    }
    Ok(Secret::new(token))
}

/// A warning when a file holding a token can be read by group or others.
#[cfg(unix)]
pub fn loose_permissions(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    (mode & 0o077 != 0).then(|| {
        format!(
            "warning: {} holds a token but is readable by others (mode {:o}); run chmod 600 on it",
            path.display(),
            mode & 0o777
        )
    })
}

#[cfg(not(unix))]
pub fn loose_permissions(_path: &Path) -> Option<String> {
    None
}

/// A token from the file goes only to the base URL the file names for it. With the base URL
/// from a flag or the environment (`from`) at another origin than the one the token's level
/// names (`configured`: the profile's own, else the top level's), the pair is refused: why,
/// naming both sources. A level that names no base URL leaves its token for whichever is given.
pub(super) fn foreign_base_url(
    token_source: &Source,
    from: &Source,
    base_url: Option<&url::Url>,
    configured: Option<&url::Url>,
    path: &Path,
) -> Option<ConfigError> {
    let base_url_from = match from {
        Source::Env(name) => Outside::Env(name),
        Source::Flag(name) => Outside::Flag(name),
        _ => return None,
    };
    let file = path.to_path_buf();
    let token_from = match token_source {
        Source::Profile(name) => TokenLevel::Profile {
            name: name.clone(),
            file,
        },
        Source::TopLevel => TokenLevel::TopLevel { file },
        Source::SetToken => TokenLevel::SetToken { config_file: file },
        Source::Default | Source::Env(_) | Source::Flag(_) => return None,
    };
    let (given, configured) = (base_url?, configured?);
    (given.origin() != configured.origin()).then(|| {
        ConfigError::ForeignBaseUrl(Box::new(Mismatch {
            token_from,
            configured: configured.clone(),
            base_url_from,
            given: given.clone(),
        }))
    })
}
