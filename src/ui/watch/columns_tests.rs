use super::*;

#[test]
fn ids_keep_the_width_that_tells_them_apart() {
    assert_eq!(distinct_width(&["sim-1", "hold-2"]), 2, "s… and h…");
    assert_eq!(
        distinct_width(&[
            "batch-2026-11-25-render-0001",
            "batch-2026-11-25-render-0002"
        ]),
        28,
        "they differ only in the last character"
    );
    assert_eq!(distinct_width(&["abc"]), 1);
    assert_eq!(distinct_width(&[]), 0);
    // The ID column takes that width while the info column keeps its minimum.
    let at_80 = Columns::fit(78, 40, 36, None, None);
    assert_eq!(at_80.id, 36, "{at_80:?}");
    let squeezed = Columns::fit(50, 40, 36, None, None);
    assert_eq!(
        squeezed.id,
        50 - (STATUS_WIDTH + 4 + 3) - 14,
        "{squeezed:?}"
    );
}

#[test]
fn columns_keep_the_info_column_longest() {
    let narrow = Columns::fit(40, 30, 7, None, None);
    assert!(!narrow.eta && !narrow.gauge && !narrow.kind);
    let at_80 = Columns::fit(78, 24, 7, None, None);
    assert!(at_80.eta, "{at_80:?}");
    let wide = Columns::fit(200, 24, 7, Some(10), Some(9));
    assert!(wide.eta && wide.gauge && wide.kind && wide.updated && wide.added);
    assert_eq!((wide.service, wide.label), (Some(10), Some(9)));
    // Half of 150 columns: the service shows, the info column keeps its minimum.
    let half = Columns::fit(73, 14, 7, Some(15), None);
    assert!(
        half.eta && half.service.is_some() && !half.gauge,
        "{half:?}"
    );
}
