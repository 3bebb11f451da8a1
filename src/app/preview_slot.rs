//! The detail section's picture as state: which task's picture is wanted for which area, what
//! is shown meanwhile, and when the worker must be asked. The state holds one `PreviewSlot`
//! and calls `show` whenever the detail section's task or picture area may have changed (after
//! a selection move, a resize, a poll that completed the task, a download that saved it);
//! `show` returns the request to send as `Cmd::Preview` only when the worker has work to do.
//! `Msg::Preview` goes to `apply`. The view draws `view()`.

use crate::cmd::{PreviewRequest, PreviewSource, TaskKey};
use crate::msg::PreviewReport;
use crate::picture::PreviewView;
use ratatui::layout::Size;

#[derive(Debug, Clone)]
pub struct PreviewSlot {
    /// When previews are off this session: the view saying why.
    off: Option<PreviewView>,
    wanted: Option<Wanted>,
}

#[derive(Debug, Clone)]
struct Wanted {
    key: TaskKey,
    source: PreviewSource,
    area: Size,
    view: PreviewView,
}

impl PreviewSlot {
    /// Previews on, nothing shown yet.
    pub fn new() -> Self {
        PreviewSlot {
            off: None,
            wanted: None,
        }
    }

    /// Previews off this session (`image_preview = "off"`, `NO_COLOR` with half-blocks): every
    /// finished task shows `reason` instead, and the worker is never asked.
    pub fn off(reason: impl Into<String>) -> Self {
        PreviewSlot {
            off: Some(PreviewView::Off(reason.into())),
            wanted: None,
        }
    }

    /// The detail section shows task `key`, whose file is `source`, with `area` cells for the
    /// picture. Returns the request for the worker, if one is needed: for a new task or file,
    /// or for a picture at a new size (the old one stays on screen meanwhile).
    pub fn show(
        &mut self,
        key: &TaskKey,
        source: &PreviewSource,
        area: Size,
    ) -> Option<PreviewRequest> {
        if self.off.is_some() || area.width == 0 || area.height == 0 {
            return None;
        }
        let request = |area| PreviewRequest {
            key: key.clone(),
            source: source.clone(),
            area,
        };
        match &mut self.wanted {
            Some(w) if w.key == *key && w.source == *source => {
                if w.area == area {
                    return None;
                }
                w.area = area;
                // A failure, or a video without a frame, does not depend on the area.
                match &w.view {
                    PreviewView::Loading => Some(request(area)),
                    PreviewView::Ready(picture) if picture.encoded_for().is_some() => {
                        Some(request(area))
                    }
                    _ => None,
                }
            }
            _ => {
                self.wanted = Some(Wanted {
                    key: key.clone(),
                    source: source.clone(),
                    area,
                    view: PreviewView::Loading,
                });
                Some(request(area))
            }
        }
    }

    /// Nothing to preview: no task selected, or it is not finished. A later `show` of the
    /// same task asks the worker again (it answers from what it kept).
    pub fn clear(&mut self) {
        self.wanted = None;
    }

    /// Takes in the worker's answer. Returns whether what is shown changed. Answers for
    /// another task, or a picture for an earlier size once another picture is shown, are
    /// dropped.
    pub fn apply(&mut self, report: PreviewReport) -> bool {
        let Some(w) = &mut self.wanted else {
            return false;
        };
        if report.key != w.key {
            return false;
        }
        w.view = match report.result {
            Ok(picture) if picture.encoded_for().is_some_and(|a| a != w.area) => {
                // Better than "loading" until the right size arrives.
                if !matches!(w.view, PreviewView::Loading) {
                    return false;
                }
                PreviewView::Ready(picture)
            }
            Ok(picture) => PreviewView::Ready(picture),
            Err(reason) => PreviewView::Failed(reason.to_string()),
        };
        true
    }

    /// What to draw for the task shown, if any; when previews are off, why.
    pub fn view(&self) -> Option<&PreviewView> {
        self.off
            .as_ref()
            .or_else(|| self.wanted.as_ref().map(|w| &w.view))
    }

    /// The task and area last asked for.
    pub fn wanted(&self) -> Option<(&TaskKey, Size)> {
        self.wanted.as_ref().map(|w| (&w.key, w.area))
    }
}

impl Default for PreviewSlot {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::picture::decode::{decode, encode};
    use crate::picture::{Graphics, Picture, PreviewImage};

    fn key(id: &str) -> TaskKey {
        TaskKey::new(TaskKind::Image, id)
    }

    fn url(u: &str) -> PreviewSource {
        PreviewSource::Url(u.into())
    }

    fn image(area: Size) -> PreviewImage {
        use image::{ImageEncoder, RgbImage};
        let img = RgbImage::from_pixel(8, 8, image::Rgb([9, 9, 9]));
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(img.as_raw(), 8, 8, image::ExtendedColorType::Rgb8)
            .expect("png");
        encode(
            &decode(&png).expect("decode"),
            &Graphics::halfblocks(),
            area,
            1,
        )
        .expect("encode")
    }

    fn report(
        id: &str,
        area: Size,
        result: Result<Picture, crate::picture::decode::PreviewError>,
    ) -> PreviewReport {
        PreviewReport {
            key: key(id),
            area,
            result,
        }
    }

    #[test]
    fn the_worker_is_asked_once_per_task_and_size() {
        let (a, small, big) = (key("a"), Size::new(20, 8), Size::new(40, 16));
        let mut slot = PreviewSlot::new();
        assert!(slot.view().is_none());
        let req = slot.show(&a, &url("http://x/a.png"), small).expect("asks");
        assert_eq!((req.key.clone(), req.area), (a.clone(), small));
        assert!(matches!(slot.view(), Some(PreviewView::Loading)));
        // Drawn again at the same size: nothing new to ask.
        assert_eq!(slot.show(&a, &url("http://x/a.png"), small), None);
        assert!(slot.apply(report("a", small, Ok(Picture::Image(image(small))))));
        assert!(matches!(
            slot.view(),
            Some(PreviewView::Ready(Picture::Image(_)))
        ));
        // Resized: asked again, the old picture stays meanwhile.
        let req = slot.show(&a, &url("http://x/a.png"), big).expect("asks");
        assert_eq!(req.area, big);
        assert!(
            matches!(slot.view(), Some(PreviewView::Ready(Picture::Image(i))) if i.area() == small)
        );
        // A late answer for the old size changes nothing; the right one replaces it.
        assert!(!slot.apply(report("a", small, Ok(Picture::Image(image(small))))));
        assert!(slot.apply(report("a", big, Ok(Picture::Image(image(big))))));
        assert!(
            matches!(slot.view(), Some(PreviewView::Ready(Picture::Image(i))) if i.area() == big)
        );
        // Another task: loading, and the first task's answers are dropped.
        assert!(slot.show(&key("b"), &url("http://x/b.png"), big).is_some());
        assert!(!slot.apply(report("a", big, Ok(Picture::Image(image(big))))));
        assert!(matches!(slot.view(), Some(PreviewView::Loading)));
        // The same task saved to a file since: asked again.
        assert!(
            slot.show(&key("b"), &PreviewSource::File("b.png".into()), big)
                .is_some()
        );
    }

    #[test]
    fn failures_and_videos_do_not_depend_on_the_size() {
        let a = key("a");
        let mut slot = PreviewSlot::new();
        slot.show(&a, &url("http://x/a.png"), Size::new(20, 8));
        assert!(slot.apply(report(
            "a",
            Size::new(20, 8),
            Err(crate::picture::decode::PreviewError::NotAnImage)
        )));
        assert_eq!(
            slot.show(&a, &url("http://x/a.png"), Size::new(30, 8)),
            None
        );
        assert!(matches!(slot.view(), Some(PreviewView::Failed(r)) if r.contains("not a PNG")));
        // Coming back to a task asks again: a transient failure may be over.
        slot.clear();
        assert!(slot.view().is_none());
        assert!(
            slot.show(&a, &url("http://x/a.png"), Size::new(30, 8))
                .is_some()
        );
        // A video's size arrives whatever the size asked for.
        let v = TaskKey::new(TaskKind::Video, "v");
        slot.show(&v, &url("http://x/v.mp4"), Size::new(30, 8));
        assert!(slot.apply(PreviewReport {
            key: v.clone(),
            area: Size::new(10, 8),
            result: Ok(Picture::Video(crate::picture::video::VideoPreview {
                bytes: Some(5),
                duration: None,
                frame: crate::picture::video::Frame::Missing("no ffmpeg".into()),
            })),
        }));
        assert_eq!(
            slot.show(&v, &url("http://x/v.mp4"), Size::new(40, 8)),
            None
        );
    }

    /// A video's frame is encoded for an area, as a picture is: asked again at a new size, the
    /// frame for the old size dropped once the right one is shown.
    #[test]
    fn a_videos_frame_is_asked_for_at_each_size() {
        use crate::picture::video::{Frame, VideoPreview};
        let v = TaskKey::new(TaskKind::Video, "v");
        let (small, big) = (Size::new(20, 8), Size::new(40, 16));
        let framed = |area: Size| {
            Ok(Picture::Video(VideoPreview {
                bytes: Some(5),
                duration: None,
                frame: Frame::Shown {
                    image: image(crate::picture::video::frame_place(area)),
                    at: std::time::Duration::ZERO,
                    area,
                },
            }))
        };
        let mut slot = PreviewSlot::new();
        slot.show(&v, &url("http://x/v.mp4"), small);
        let answer = |area, result| PreviewReport {
            key: v.clone(),
            area,
            result,
        };
        assert!(slot.apply(answer(small, framed(small))));
        let req = slot.show(&v, &url("http://x/v.mp4"), big).expect("asks");
        assert_eq!(req.area, big);
        assert!(!slot.apply(answer(small, framed(small))), "a late answer");
        assert!(slot.apply(answer(big, framed(big))));
        assert!(matches!(
            slot.view(),
            Some(PreviewView::Ready(p)) if p.encoded_for() == Some(big)
        ));
    }

    #[test]
    fn off_never_asks() {
        let mut slot = PreviewSlot::off("image previews are off (image_preview = \"off\")");
        assert_eq!(
            slot.show(&key("a"), &url("http://x/a.png"), Size::new(20, 8)),
            None
        );
        assert!(matches!(slot.view(), Some(PreviewView::Off(r)) if r.contains("off")));
        let mut slot = PreviewSlot::new();
        assert_eq!(
            slot.show(&key("a"), &url("http://x/a.png"), Size::new(0, 8)),
            None
        );
    }
}
