//! The machinery behind `schema.rs`, where each configuration key is declared once:
//! [`declare_keys!`] turns that declaration into the file's format (`FileSettings`), the
//! resolved `Settings` with their defaults, and `KEYS`, the table the precedence loop
//! (`resolve_from`), `config show` and the manual's key list read.

use super::Overrides;

/// One key of the file, as declared in `schema.rs`.
pub struct Key<S: 'static, F: 'static> {
    pub name: &'static str,
    /// One line for the manual.
    pub about: &'static str,
    /// What the value is, for the manual (`number of seconds (at least 1)`, `URL`).
    pub kind: &'static str,
    /// The values it takes, where they are a few names.
    pub values: &'static [&'static str],
    /// The default as the manual says it, where `config show` would print the machine's own
    /// (a directory) or the key is resolved by hand.
    pub default_doc: Option<&'static str>,
    pub flag: Option<&'static str>,
    pub env: Option<&'static str>,
    pub show: Show<S>,
    /// How it goes through the layers; `None` for what is resolved by hand (the token's three
    /// ways, in `token.rs`; `profiles`, which chooses a level).
    pub layered: Option<Layered<S, F>>,
    /// Whether two resolved values of it are the same (a reload tells what changed); `None`
    /// for what is resolved by hand.
    pub same: Option<fn(&S, &S) -> bool>,
}

/// How `config show` writes a key.
pub enum Show<S> {
    /// A line of its own, with this value.
    Line(fn(&S) -> String),
    /// Said on the line of another (`token_file` on `token`'s, `profiles` on `profile:`).
    On(&'static str),
}

/// A key that goes through the layers: flag > environment > profile > top level > default.
pub struct Layered<S, F> {
    /// Takes one level's value, if that level sets the key (replacing what a lower level
    /// gave, or, for a table, adding its entries to them); says whether it did.
    pub level: fn(&mut S, &F) -> bool,
    /// The flag's text, if given.
    pub flag_value: fn(&Overrides) -> Option<String>,
    /// Takes the flag's or the variable's text; the error is said after their name.
    pub outside: Option<TakeText<S>>,
}

/// Takes a flag's or a variable's text into the settings.
pub type TakeText<S> = fn(&mut S, &str) -> Result<(), super::values::ValueError>;

/// `f(x)`: the declaration's closures are called through this, their types written by the
/// macro (a closure called where it is written is what clippy calls redundant).
pub fn call<A, R>(f: fn(A) -> R, x: A) -> R {
    f(x)
}

/// `f(a, b)`, as [`call`].
pub fn call2<A, B, R>(f: fn(A, B) -> R, a: A, b: B) -> R {
    f(a, b)
}

/// The declaration's grammar, one entry per key (see `schema.rs`):
///
/// ```text
/// /// One line for the manual.
/// #[serde(...)]                      // optional: attributes of the file's field
/// name: FileType => ResolvedType {   // `=> ResolvedType` for a key that goes through the layers
///     default: expr,                 // the resolved value when no layer sets it
///     read: |file| resolved,         // optional: the file's value made the resolved one
///     merge: |resolved, file| ..,    // or: a table whose levels add up, entry by entry
///     flag: "--name" = |overrides| text,   // optional
///     env: "GENDASH_…",              // optional
///     parse: |text| Ok(file_value),  // how the flag's or variable's text is read
///     show: |resolved| text,         // `config show`'s value (a `Show` for a key by hand)
///     kind: "what it is",
///     values: &[..],                 // optional
///     default_doc: "(not set)",      // optional
/// }
/// ```
macro_rules! declare_keys {
    (@opt) => { None };
    (@opt $x:expr) => { Some($x) };
    (@or [] $default:expr) => { $default };
    (@or [$x:expr] $default:expr) => { $x };

    // One level's value into the resolved one: as it is, read, or merged entry by entry.
    (@take $s:ident . $name:ident, $v:ident, $file:ty, $value:ty, [], []) => {
        $s.$name = Clone::clone($v)
    };
    (@take $s:ident . $name:ident, $v:ident, $file:ty, $value:ty, [$read:expr], []) => {
        $s.$name = call::<$file, $value>($read, Clone::clone($v))
    };
    (@take $s:ident . $name:ident, $v:ident, $file:ty, $value:ty, [], [$merge:expr]) => {
        call2::<&mut $value, &$file, ()>($merge, &mut $s.$name, $v)
    };

    // Every resolved type is `Debug` (the settings are): compared by it, a key added to the
    // declaration is compared with no code of its own.
    (@same $name:ident, []) => { None };
    (@same $name:ident, [$value:ty]) => {
        Some(|a: &Settings, b: &Settings| format!("{:?}", a.$name) == format!("{:?}", b.$name))
    };

    (@show $name:ident, [], $show:expr) => { $show };
    (@show $name:ident, [$value:ty], $show:expr) => {
        Show::Line(|s: &Settings| call::<&$value, String>($show, &s.$name))
    };

    (@outside $name:ident, $file:ty, $value:ty, $read:tt, $merge:tt, []) => { None };
    (@outside $name:ident, $file:ty, $value:ty, $read:tt, $merge:tt, [$parse:expr]) => {
        Some(|s: &mut Settings, text: &str| -> Result<(), ValueError> {
            let v = &call::<&str, Result<$file, ValueError>>($parse, text)?;
            declare_keys!(@take s.$name, v, $file, $value, $read, $merge);
            Ok(())
        })
    };

    (@layered $name:ident, $file:ty, [], $read:tt, $merge:tt, $parse:tt, $flag_value:tt) => {
        None
    };
    (@layered $name:ident, $file:ty, [$value:ty], $read:tt, $merge:tt, $parse:tt,
        [$($flag_value:expr)?]) => {
        Some(Layered {
            level: |s: &mut Settings, level: &FileSettings| -> bool {
                let Some(v) = &level.$name else { return false };
                declare_keys!(@take s.$name, v, $file, $value, $read, $merge);
                true
            },
            flag_value: declare_keys!(@or [$($flag_value)?] |_| None),
            outside: declare_keys!(@outside $name, $file, $value, $read, $merge, $parse),
        })
    };

    (
        $(#[$settings_meta:meta])*
        pub struct Settings {
            $( $(#[$extra_meta:meta])* pub $extra:ident : $extra_ty:ty, )*
        }
        $(#[$file_meta:meta])*
        pub struct FileSettings;
        keys {
            $(
                #[doc = $about:literal]
                $(#[$attr:meta])*
                $name:ident : $file:ty $( => $value:ty )? {
                    $( default: $default:expr, )?
                    $( read: $read:expr, )?
                    $( merge: $merge:expr, )?
                    $( flag: $flag:literal = $flag_value:expr, )?
                    $( env: $env:literal, )?
                    $( parse: $parse:expr, )?
                    show: $show:expr,
                    kind: $kind:expr,
                    $( values: $values:expr, )?
                    $( default_doc: $default_doc:expr, )?
                }
            )*
        }
    ) => {
        $(#[$settings_meta])*
        #[derive(Debug, Clone)]
        pub struct Settings {
            $( $(#[$extra_meta])* pub $extra: $extra_ty, )*
            $( $( #[doc = $about] pub $name: $value, )? )*
        }

        impl Settings {
            /// Every key at its default; nothing else known yet.
            pub fn defaults() -> Settings {
                Settings {
                    $( $extra: Default::default(), )*
                    $( $( $name: $default, )? )*
                }
            }
        }

        $(#[$file_meta])*
        #[derive(Debug, Clone, Default, serde::Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        pub struct FileSettings {
            $( #[doc = $about] $(#[$attr])* pub $name: Option<$file>, )*
        }

        /// The keys one level of the file takes, in the declaration's order.
        pub const NAMES: &[&str] = &[$( stringify!($name) ),*];

        /// Every key, in the declaration's order.
        pub const KEYS: &[Key<Settings, FileSettings>] = &[$(
            Key {
                name: stringify!($name),
                about: $about.trim_ascii(),
                kind: $kind,
                values: declare_keys!(@or [$($values)?] &[]),
                default_doc: declare_keys!(@opt $($default_doc)?),
                flag: declare_keys!(@opt $($flag)?),
                env: declare_keys!(@opt $($env)?),
                show: declare_keys!(@show $name, [$($value)?], $show),
                layered: declare_keys!(@layered $name, $file, [$($value)?], [$($read)?],
                    [$($merge)?], [$($parse)?], [$($flag_value)?]),
                same: declare_keys!(@same $name, [$($value)?]),
            },
        )*];
    };
}

pub(super) use declare_keys;
