//! `gendash models --prompt`: the models as one prompt, as a script piping it into a
//! generation reads it, built by the same code as the browser's copy-prompt key.

use super::commands::{run, run_in, split};
use crate::common::{TOKEN, service, write_config};

/// The two demo models the filter picks, in the order it ranks them.
const FILTER: &str = "^tilt_shift_detailer$ | ^ukiyo-e_v2_xl$";

#[tokio::test]
async fn the_filtered_models_are_one_prompt_on_one_line() {
    let svc = service().await;
    let (code, out, err) = run(&svc.base_url(), &["models", "--prompt", "--filter", FILTER]).await;
    assert_eq!(code, 0, "{err}");
    let mut models = [
        "<lora:tilt_shift_detailer:0.53> tilt, shift",
        "<lora:ukiyo-e_v2_xl:0.82> ukiyo-e, v2",
    ];
    if !out.starts_with("<lora:tilt") {
        models.reverse();
    }
    assert_eq!(out, format!("{}\n", models.join(", ")));
    assert_eq!(err, "the prompt of 2 models\n");

    // Nothing matched: nothing printed, exit 4.
    let (code, out, err) = run(
        &svc.base_url(),
        &["models", "--prompt", "--filter", "^no_such_model$"],
    )
    .await;
    assert_eq!((code, out.as_str()), (4, ""), "{err}");
    assert!(err.contains("no model matches"), "{err}");
}

#[tokio::test]
async fn the_configured_template_and_weight_are_used() {
    let svc = service().await;
    let home = tempfile::tempdir().unwrap();
    write_config(
        home.path(),
        "lora_weight = 0.7\nprompt_template = \"{model}:{weight} by {author}, {meta.nothing}; {base_model}\"\n",
    );
    let out = run_in(
        home.path(),
        &svc.base_url(),
        TOKEN,
        &["models", "--prompt", "--filter", "^tilt_shift_detailer$"],
    )
    .await;
    let (code, out, err) = split(&out);
    assert_eq!(code, 0, "{err}");
    // The entry's recommended weight wins over lora_weight; the missing field takes its
    // separator with it.
    assert_eq!(out, "tilt_shift_detailer:0.53 by c0smos; SD 1.5\n");

    write_config(home.path(), "prompt_template = \"<lora:{name}>\"\n");
    let out = run_in(home.path(), &svc.base_url(), TOKEN, &["models", "--prompt"]).await;
    let (code, out, err) = split(&out);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains("line 1, key `prompt_template`")
            && err.contains("`{name}` is not a placeholder of prompt_template"),
        "{err}"
    );
}
