//! Plain mode's line commands: a typed line to a `Command`, or a one-line error. Pure.

use crate::api::TaskKind;

/// What a line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An empty line.
    Nothing,
    List,
    /// The watch list's results as the gallery shows them, one a line.
    Gallery,
    Add {
        ids: Vec<String>,
        kind: TaskKind,
    },
    Remove(String),
    Undo,
    Open(String),
    Download(String),
    /// The watch list's filter; empty clears it.
    Filter(String),
    /// The catalogue, with the filter's text (empty: all of it).
    Models(String),
    /// Apply the saved view of this name.
    View(String),
    /// The saved views, one a line.
    Views,
    /// Run the `[[actions]]` entry `name` on these tasks (or models); none: the selection.
    Run {
        name: String,
        ids: Vec<String>,
    },
    /// The configured `[[actions]]`, one a line.
    Actions,
    /// The answer to a question (`yes` / `no`).
    Answer(bool),
    /// Read the config file again (as `SIGHUP` does).
    Reload,
    Help,
    Quit,
}

/// Every command, one line each, as `help` prints them.
pub const HELP: &[&str] = &[
    "list — the watched tasks (those the filter lets through), one a line",
    "gallery — the results as the gallery shows them: ID or label, what it is, file, size",
    "add [--video] ID… — watch tasks, as images unless --video",
    "rm ID — stop watching a task (undo brings it back)",
    "undo — undo the last add or rm",
    "open ID — open the task's download URL",
    "download ID — save the task's file in the download directory",
    "filter [TEXT] — list only the tasks TEXT matches (the filter language); no TEXT clears it",
    "models [FILTER] — the model catalogue, one model a line, FILTER matching",
    "view NAME — apply the saved view NAME (its filter and sort) to its pane",
    "views — the saved views ([views.NAME] of the config and those saved here), one a line",
    "run NAME [ID…] — run your action NAME ([[actions]]) on those tasks (models, for a browser action)",
    "actions — your actions ([[actions]] of the config): name, key, where they run, command",
    "yes / no — answer a question (overwrite a file?)",
    "reload — read the config file again and apply what changed (so does SIGHUP)",
    "help — these lines",
    "quit — end gendash (so does Ctrl-D)",
];

/// A line that is no command: what is wrong and what to type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The first word, as typed.
    #[error("unknown command \"{0}\": type help for the commands")]
    Unknown(String),
    #[error("{0} needs a task ID: {0} ID")]
    NeedsId(&'static str),
    #[error("{0} takes one task ID: {0} ID")]
    OneId(&'static str),
    /// The command, as typed.
    #[error("{0} takes no arguments")]
    NoArguments(String),
    #[error("add: unknown option {0} (add [--video] ID…)")]
    UnknownOption(String),
    #[error("add needs at least one task ID: add [--video] ID…")]
    AddNeedsIds,
    #[error("view needs a view's name: view NAME (views lists them)")]
    ViewNeedsName,
    #[error("run needs an action's name: run NAME [ID…] (actions lists them)")]
    RunNeedsName,
}

/// The command a line asks for; the error names what is wrong and what to type.
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let line = line.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(w, r)| (w, r.trim()));
    let args: Vec<&str> = rest.split_whitespace().collect();
    let one = |name: &'static str| match args.as_slice() {
        [id] => Ok((*id).to_string()),
        [] => Err(CommandError::NeedsId(name)),
        _ => Err(CommandError::OneId(name)),
    };
    let none = |command: Command| {
        if args.is_empty() {
            Ok(command)
        } else {
            Err(CommandError::NoArguments(word.to_string()))
        }
    };
    match word.to_lowercase().as_str() {
        "" => Ok(Command::Nothing),
        "list" | "ls" => none(Command::List),
        "gallery" => none(Command::Gallery),
        "add" => add(&args),
        "rm" | "remove" => one("rm").map(Command::Remove),
        "undo" => none(Command::Undo),
        "open" => one("open").map(Command::Open),
        "download" => one("download").map(Command::Download),
        "filter" => Ok(Command::Filter(rest.to_string())),
        "models" => Ok(Command::Models(rest.to_string())),
        "view" if rest.is_empty() => Err(CommandError::ViewNeedsName),
        "view" => Ok(Command::View(rest.to_string())),
        "views" => none(Command::Views),
        "run" => match args.split_first() {
            Some((name, ids)) => Ok(Command::Run {
                name: (*name).to_string(),
                ids: ids.iter().map(|id| (*id).to_string()).collect(),
            }),
            None => Err(CommandError::RunNeedsName),
        },
        "actions" => none(Command::Actions),
        "yes" | "y" => none(Command::Answer(true)),
        "no" | "n" => none(Command::Answer(false)),
        "reload" => none(Command::Reload),
        "help" | "?" => none(Command::Help),
        "quit" | "exit" | "q" => none(Command::Quit),
        _ => Err(CommandError::Unknown(word.to_string())),
    }
}

/// `add [--video|--image] ID…`: the IDs are one kind, as in the dashboard's add dialog.
fn add(args: &[&str]) -> Result<Command, CommandError> {
    let mut kind = TaskKind::Image;
    let mut ids = Vec::new();
    for arg in args {
        match *arg {
            "--video" | "-v" => kind = TaskKind::Video,
            "--image" | "-i" => kind = TaskKind::Image,
            flag if flag.starts_with('-') => {
                return Err(CommandError::UnknownOption(flag.to_string()));
            }
            id => ids.push(id.to_string()),
        }
    }
    if ids.is_empty() {
        return Err(CommandError::AddNeedsIds);
    }
    Ok(Command::Add { ids, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_parses() {
        assert_eq!(parse(""), Ok(Command::Nothing));
        assert_eq!(parse("  list "), Ok(Command::List));
        assert_eq!(
            parse("add sim-3 sim-4"),
            Ok(Command::Add {
                ids: vec!["sim-3".into(), "sim-4".into()],
                kind: TaskKind::Image
            })
        );
        assert_eq!(
            parse("add --video v-1"),
            Ok(Command::Add {
                ids: vec!["v-1".into()],
                kind: TaskKind::Video
            })
        );
        assert_eq!(parse("rm sim-3"), Ok(Command::Remove("sim-3".into())));
        assert_eq!(parse("undo"), Ok(Command::Undo));
        assert_eq!(parse("open a"), Ok(Command::Open("a".into())));
        assert_eq!(parse("download a"), Ok(Command::Download("a".into())));
        assert_eq!(
            parse("filter  sim  !fail "),
            Ok(Command::Filter("sim  !fail".into()))
        );
        assert_eq!(parse("filter"), Ok(Command::Filter(String::new())));
        assert_eq!(parse("models water"), Ok(Command::Models("water".into())));
        assert_eq!(parse("models"), Ok(Command::Models(String::new())));
        assert_eq!(
            parse("view  failed today "),
            Ok(Command::View("failed today".into()))
        );
        assert_eq!(parse("views"), Ok(Command::Views));
        assert_eq!(
            parse("run  upscale sim-3  sim-4"),
            Ok(Command::Run {
                name: "upscale".into(),
                ids: vec!["sim-3".into(), "sim-4".into()]
            })
        );
        assert_eq!(
            parse("run upscale"),
            Ok(Command::Run {
                name: "upscale".into(),
                ids: Vec::new()
            })
        );
        assert_eq!(parse("actions"), Ok(Command::Actions));
        assert_eq!(parse("y"), Ok(Command::Answer(true)));
        assert_eq!(parse("no"), Ok(Command::Answer(false)));
        assert_eq!(parse("help"), Ok(Command::Help));
        assert_eq!(parse("QUIT"), Ok(Command::Quit));
    }

    /// What a line says back: the command, or the words of its mistake.
    // Text on purpose: the words the user reads are what is checked.
    fn said(line: &str) -> Result<Command, String> {
        parse(line).map_err(|e| e.to_string())
    }

    #[test]
    fn mistakes_are_one_line_each_saying_what_to_type() {
        assert_eq!(
            said("frobnicate now"),
            Err("unknown command \"frobnicate\": type help for the commands".into())
        );
        assert_eq!(
            said("add"),
            Err("add needs at least one task ID: add [--video] ID…".into())
        );
        assert_eq!(
            said("add --gif x"),
            Err("add: unknown option --gif (add [--video] ID…)".into())
        );
        assert_eq!(said("rm"), Err("rm needs a task ID: rm ID".into()));
        assert_eq!(
            said("open a b"),
            Err("open takes one task ID: open ID".into())
        );
        assert_eq!(said("list all"), Err("list takes no arguments".into()));
        assert_eq!(
            said("view"),
            Err("view needs a view's name: view NAME (views lists them)".into())
        );
        assert_eq!(
            said("run"),
            Err("run needs an action's name: run NAME [ID…] (actions lists them)".into())
        );
        assert_eq!(
            said("actions all"),
            Err("actions takes no arguments".into())
        );
        for line in HELP {
            assert!(!line.contains('\n'), "{line}");
        }
    }

    #[test]
    fn help_names_every_command() {
        for word in [
            "list", "gallery", "add", "rm", "undo", "open", "download", "filter", "models", "view",
            "views", "run", "actions", "reload", "help", "quit",
        ] {
            assert!(
                HELP.iter().any(|l| l.starts_with(word)),
                "{word} is not in help"
            );
            assert_ne!(
                said(&format!("{word} x")).err().as_deref(),
                Some(format!("unknown command \"{word}\": type help for the commands").as_str())
            );
        }
    }
}
