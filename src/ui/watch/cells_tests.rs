use super::*;

#[test]
fn gauge_bounds() {
    assert_eq!(gauge(0, 10), "░░░░░░░░░░");
    assert_eq!(gauge(55, 10), "██████░░░░");
    assert_eq!(gauge(100, 10), "██████████");
    assert_eq!(gauge(255, 10), "██████████");
}

#[test]
fn file_names_are_the_last_path_segment() {
    assert_eq!(
        file_name("http://127.0.0.1:8787/files/img-done.png"),
        "img-done.png"
    );
    assert_eq!(
        file_name("https://cdn.example/a/b/v.mp4?sig=x/y#frag"),
        "v.mp4"
    );
    assert_eq!(file_name("https://cdn.example/dir/"), "dir");
    assert_eq!(file_name("https://cdn.example"), "https://cdn.example");
}
