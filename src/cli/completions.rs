//! `gendash completions SHELL`: the shell's completion script, offering the profile names of
//! the config file in force after `--profile` (as they are when the script is made).

use super::{Cli, Global, output};
use crate::store::config;

pub fn run(global: &Global, shell: clap_complete::Shell) {
    let mut cli = <Cli as clap::CommandFactory>::command();
    match config::profile_names(&global.overrides(), &config::process_env) {
        Ok(names) if !names.is_empty() => {
            // Only the script's command learns the names: parsing still takes any profile,
            // so one added after the script was made is refused by the config, not by clap.
            // clap takes `'static` names (without its `string` feature); this process ends
            // once the script is printed.
            let names: Vec<&'static str> = names
                .into_iter()
                .map(|n| &*Box::leak(n.into_boxed_str()))
                .collect();
            cli = cli.mut_arg("profile", |arg| {
                arg.value_parser(clap::builder::PossibleValuesParser::new(names))
            });
        }
        Ok(_) => {}
        Err(e) => output::note(&format!(
            "profile names are not offered after --profile: {e}"
        )),
    }
    clap_complete::generate(shell, &mut cli, "gendash", &mut std::io::stdout());
}
