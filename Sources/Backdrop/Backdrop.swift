// Backdrop: how the card is laid on an output's buffer for `shimmerd view --background`
// (pure: no I/O, no clocks, nothing of Wayland).
//
// Purpose: `BackgroundPlacement` says where the card goes on an output of a given size and
// scale (copied 1:1 where the scales agree, scaled and never cut elsewhere, centred);
// `BackgroundComposer` paints the fill, the card and the fill in its rounded corners
// (`CardShape`, docs/CARD.md) into a `Pixmap`; `AxisWeights` is its resampling filter.
// Invariants: pixels are XRGB8888 words, the fourth byte of a frame is ignored and written
// 0; a composer's output is a function of its placement, its fill and the frame.
// Built with -O in debug builds too, as the card's kernels are: a desktop's outputs are
// megapixels, and a debug build's unoptimized loops would make a test of the product's
// timing measure the build instead.
// Must not import: anything but Raster (layer 1b).
