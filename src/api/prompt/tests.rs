use super::*;
use serde_json::json;

fn entry(model: &str, metadata: &Value) -> LoraEntry {
    LoraEntry::new(model, metadata.as_object().expect("an object"))
}

fn expand(template: &str, e: &LoraEntry) -> String {
    PromptTemplate::parse(template)
        .expect("a template")
        .expand(e, DEFAULT_WEIGHT)
}

#[test]
fn the_default_gives_the_tag_with_the_recommended_weight_and_the_trigger_words() {
    let e = entry(
        "tilt_shift_detailer",
        &json!({"trigger_words": ["tilt", "shift"], "recommended_weight": 0.53}),
    );
    assert_eq!(
        PromptTemplate::default().expand(&e, 1.0),
        "<lora:tilt_shift_detailer:0.53> tilt, shift"
    );
}

#[test]
fn without_a_recommended_weight_the_configured_one_is_used() {
    let e = entry("plain", &json!({"trigger_words": "plain style"}));
    let t = PromptTemplate::default();
    assert_eq!(t.expand(&e, 1.0), "<lora:plain:1> plain style");
    assert_eq!(t.expand(&e, 0.7), "<lora:plain:0.7> plain style");
    // A weight the service wrote as text counts; one that is no number does not.
    let text = entry("t", &json!({"recommended_weight": "0.6"}));
    assert_eq!(t.expand(&text, 1.0), "<lora:t:0.6>");
    let junk = entry("j", &json!({"recommended_weight": "strong"}));
    assert_eq!(t.expand(&junk, 0.9), "<lora:j:0.9>");
}

#[test]
fn a_missing_field_leaves_no_stray_separator() {
    let none = entry("x", &json!({"recommended_weight": 0.8}));
    // No trigger words: no trailing space.
    assert_eq!(PromptTemplate::default().expand(&none, 1.0), "<lora:x:0.8>");
    let empty = entry(
        "x",
        &json!({"trigger_words": [], "version": "", "author": null}),
    );
    assert_eq!(
        expand("<lora:{model}:{weight}> {trigger_words}", &empty),
        "<lora:x:1>"
    );
    let b = entry("x", &json!({"author": "bo"}));
    // Missing at the start: the separator after it goes.
    assert_eq!(expand("{version}, {author}", &b), "bo");
    // Missing at the end: the separator before it goes.
    assert_eq!(expand("{author}, {version}", &b), "bo");
    // Missing in the middle: one separator stays between what is there.
    assert_eq!(expand("{model}, {version}; {author}", &b), "x; bo");
    // Both missing, and text around: nothing dangles.
    assert_eq!(expand("{version}, {base_model}, {model}", &b), "x");
    assert_eq!(expand("  {model}   by  {author} ,", &b), "x by bo");
}

#[test]
fn lists_numbers_and_any_field_are_written_out() {
    let e = entry(
        "m",
        &json!({
            "trigger_words": ["a", " ", "b c", 3],
            "base_model": "SDXL 1.0",
            "rating": 4.5,
            "sampler": "euler",
            "nested": {"x": 1},
        }),
    );
    assert_eq!(
        expand(
            "{trigger_words} | {base_model} | {rating} | {meta.sampler}",
            &e
        ),
        "a, b c, 3 | SDXL 1.0 | 4.5 | euler"
    );
    assert_eq!(expand("{model} {meta.nested}", &e), "m");
}

#[test]
fn every_value_and_the_template_are_sanitised() {
    // Built past the decoder, as a service's raw bytes would be.
    let e = entry(
        "evil\u{1b}[2Jname",
        &json!({"trigger_words": ["red\u{7}", "line\nbreak", "\u{1b}]52;c;AAAA\u{7}x"]}),
    );
    let text = PromptTemplate::parse("{model}:\t{trigger_words}\r\n")
        .expect("a template")
        .expand(&e, 1.0);
    assert_eq!(text, "evilname: red, line break, x");
    assert!(text.chars().all(|c| !c.is_control()), "{text:?}");
}

#[test]
fn several_models_make_one_prompt_each_once() {
    let a = entry(
        "a",
        &json!({"trigger_words": ["ta"], "recommended_weight": 0.5}),
    );
    let b = entry("b", &json!({}));
    let settings = PromptSettings::default();
    assert_eq!(settings.prompt([&a, &b, &a]), "<lora:a:0.5> ta, <lora:b:1>");
    // A model whose prompt is empty adds no separator.
    let only_words = PromptTemplate::parse("{trigger_words}").expect("a template");
    assert_eq!(prompt(&only_words, [&b, &a, &b], 1.0), "ta");
}

#[test]
fn an_unknown_placeholder_is_refused_by_name() {
    let err = PromptTemplate::parse("<lora:{model}:{wieght}>").expect_err("refused");
    assert_eq!(
        err,
        PromptTemplateError::NoSuchPlaceholder {
            name: "wieght".into()
        }
    );
    let said = err.to_string();
    assert!(
        said.starts_with(
            "`{wieght}` is not a placeholder of prompt_template (known: {model}, {weight}"
        ),
        "{said}"
    );
    assert!(
        said.ends_with("any other metadata field: {meta.NAME})"),
        "{said}"
    );
    for (bad, why) in [
        ("", PromptTemplateError::Empty),
        ("{model", PromptTemplateError::Unclosed("{model".into())),
        ("model}", PromptTemplateError::Unopened("model}".into())),
        (
            "{meta.}",
            PromptTemplateError::NoSuchPlaceholder {
                name: "meta.".into(),
            },
        ),
    ] {
        assert_eq!(PromptTemplate::parse(bad), Err(why), "{bad:?}");
    }
}
