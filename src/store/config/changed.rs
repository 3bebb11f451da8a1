//! What a reload changed: the keys of the declaration whose resolved values differ, compared
//! key by key as `schema.rs` declares them, so a key added there is compared with no code here.

use super::schema::{KEYS, Settings};

impl Settings {
    /// The keys whose values in `newer` are not those here, in the declaration's order. The
    /// keys resolved by hand (the token's three ways, `profiles`) are not compared.
    pub fn changed(&self, newer: &Settings) -> Vec<&'static str> {
        KEYS.iter()
            .filter(|key| key.same.is_some_and(|same| !same(self, newer)))
            .map(|key| key.name)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FileSettings, Overrides, parse, resolve_from};
    use super::Settings;
    use std::path::{Path, PathBuf};

    fn of(text: &str) -> Settings {
        let file: FileSettings = parse(text, Path::new("c.toml")).expect("parses");
        let none = |_: &str| None;
        resolve_from(
            file,
            true,
            PathBuf::from("c.toml"),
            &Overrides::default(),
            &none,
        )
        .expect("resolves")
    }

    #[test]
    fn the_keys_whose_values_differ_in_the_declarations_order() {
        let before = of("poll_interval = 2\nnotify = \"each\"\n[styles]\nerror = \"red\"\n");
        assert!(before.changed(&before.clone()).is_empty());
        // The same style names, one value changed: `config show` would print both alike.
        let after = of("poll_interval = 3\nnotify = \"each\"\n[styles]\nerror = \"yellow\"\n");
        assert_eq!(before.changed(&after), ["poll_interval", "styles"]);
        // A key written with its default value is no change; a line moved is none either.
        let same = of("\n\nnotify = \"each\"\npoll_interval = 2\n[styles]\nerror = \"red\"\n");
        assert!(before.changed(&same).is_empty());
        let keys = of("[keys]\nquit = \"x\"\n");
        assert_eq!(of("").changed(&keys), ["keys"]);
    }
}
