//! Prints the keymap as Markdown, for the README's Keys section.
fn main() {
    println!("{}", gendash::app::keymap::Keymap::default().markdown());
}
