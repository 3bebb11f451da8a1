use super::*;

#[test]
fn the_duration_is_read_from_ffmpegs_report() {
    let line = "  Duration: 00:01:02.50, start: 0.000000, bitrate: 7 kb/s";
    assert_eq!(duration_of(line), Some(Duration::from_millis(62_500)));
    assert_eq!(
        duration_of("  Duration: 01:00:00.00, start: 0.0"),
        Some(Duration::from_secs(3600))
    );
    for none in [
        "  Duration: N/A, bitrate: N/A",
        "  Duration: 00:00, start",
        "  Duration: 00:00:01:02, start",
        "  Stream #0:0: Video: h264",
        "  Duration: 00:00:-1.0, start",
    ] {
        assert_eq!(duration_of(none), None, "{none}");
    }
}

#[test]
fn durations_read_as_people_write_them() {
    assert_eq!(duration_text(Duration::from_millis(4_200)), "4.2 s");
    assert_eq!(duration_text(Duration::from_millis(200)), "0.2 s");
    assert_eq!(duration_text(Duration::from_secs(65)), "1:05");
    assert_eq!(duration_text(Duration::from_secs(3723)), "1:02:03");
}

#[test]
fn the_moment_is_ten_percent_in_within_what_the_bytes_cover() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("head");
    std::fs::write(&file, vec![0u8; 1000]).expect("written");
    let secs = Duration::from_secs;
    let whole = Source {
        file: &file,
        whole: None,
    };
    assert_eq!(moment(Some(secs(20)), whole), secs(2));
    assert_eq!(moment(None, whole), Duration::ZERO);
    // The first 1,000 bytes of 10,000 cover about 2 s of 20: the frame is at 1 s.
    let head = Source {
        file: &file,
        whole: Some(10_000),
    };
    assert_eq!(moment(Some(secs(20)), head), secs(1));
    // Half of 4,000 bytes would cover 10 s: 10 % in is nearer.
    let head = Source {
        file: &file,
        whole: Some(2_000),
    };
    assert_eq!(moment(Some(secs(20)), head), secs(2));
}

#[test]
fn ffmpeg_is_found_as_an_executable_on_the_path() {
    use std::os::unix::fs::PermissionsExt;
    let (with, without, plain) = (
        tempfile::tempdir().expect("a temporary directory"),
        tempfile::tempdir().expect("a temporary directory"),
        tempfile::tempdir().expect("a temporary directory"),
    );
    let program = with.path().join("ffmpeg");
    std::fs::write(&program, "#!/bin/sh\n").expect("written");
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("written");
    // A file that cannot be run is not ffmpeg.
    std::fs::write(plain.path().join("ffmpeg"), "").expect("written");
    let path = std::env::join_paths([without.path(), plain.path(), with.path()]).expect("written");
    assert_eq!(Ffmpeg::find_in(Some(&path)), Some(Ffmpeg::at(&program)));
    let path = std::env::join_paths([without.path(), plain.path()]).expect("written");
    assert_eq!(Ffmpeg::find_in(Some(&path)), None);
    assert_eq!(Ffmpeg::find_in(None), None);
}

#[tokio::test]
async fn without_ffmpeg_the_preview_says_to_install_it() {
    let file = Path::new("/nonexistent/v.mp4");
    let source = Source { file, whole: None };
    let Err(e) = poster_frame(None, source, &Limits::default()).await else {
        panic!("no frame without ffmpeg")
    };
    assert_eq!(e, VideoFrameError::NoFfmpeg);
    assert_eq!(
        e.to_string(),
        "no ffmpeg on PATH: install ffmpeg to see a frame of the video"
    );
    let preview = VideoPreview {
        bytes: Some(3_935),
        duration: None,
        frame: Frame::Missing(e.to_string()),
    };
    assert_eq!(
        preview.caption(),
        "video · 3.9 kB: no ffmpeg on PATH: install ffmpeg to see a frame of the video"
    );
    assert_eq!(preview.area(), None);
}
