/*
 * The reference shimmerd's renderer is measured against (docs/PERFORMANCE.md): the card of
 * docs/CARD.md drawn with cairo (Debian 12: cairo 1.16), two ways.
 *
 *   naive:  every frame redraws every shape: background, rounded card, 175 circles each
 *           with its rotated axial gradient, 175 arrows (cairo_show_text), two labels.
 *   expert: everything static is drawn once; each dot's shape (circle minus its arrow)
 *           is pre-rendered once into an A8 mask at its place; a frame only sets each
 *           dot's gradient and calls cairo_mask_surface: what a cairo expert would do
 *           for "recolor the dots".
 *
 * Both time frames in which every dot changes color (the focal point alternates between
 * two far points), like `shimmerd bench`'s "all" case, and print JSON with the median,
 * p90 and min nanoseconds per frame.
 *
 *   cc -O2 card_cairo.c -o card_cairo $(pkg-config --cflags --libs cairo) -lm
 *   ./card_cairo naive|expert [frames] [scale]
 */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { double cx, cy, size, rot; } Dot;

static double map_range(double v, double a, double b, double c, double d) { return (v - a) * (d - c) / (b - a) + c; }
static double clip01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }
static double round2(double v) { return round(v * 100) / 100; }

static int layout(Dot *dots, double W, double H, double ox, double oy) {
    int n = 0;
    for (int i = 0; i < 7; i++) {
        double size = 13 * map_range(abs(i - 3), 0, 6, 1.0, 0.1);
        double radius = 40 + i * map_range(i, 0, 6, 26, 22);
        double step = M_PI / (6 * (i + 1));
        for (int k = 0; k * step < 2 * M_PI; k++) {
            double a = k * step, rot = M_PI - a;
            double cx = radius * sin(a) + ox, cy = radius * cos(a) + oy;
            double h = size / 2 * (fabs(cos(rot)) + fabs(sin(rot)));
            if (cx - h < W && cx + h > 0 && cy - h < H && cy + h > 0)
                dots[n++] = (Dot){cx, cy, size, rot};
        }
    }
    return n;
}

static void hsl(double h, double s, double l, double out[3]) {
    double c = (1 - fabs(2 * l - 1)) * s, h6 = (h - floor(h)) * 6;
    double x = c * (1 - fabs(fmod(h6, 2) - 1)), m = l - c / 2, r, g, b;
    if (h6 < 1) { r = c; g = x; b = 0; } else if (h6 < 2) { r = x; g = c; b = 0; }
    else if (h6 < 3) { r = 0; g = c; b = x; } else if (h6 < 4) { r = 0; g = x; b = c; }
    else if (h6 < 5) { r = x; g = 0; b = c; } else { r = c; g = 0; b = x; }
    out[0] = r + m; out[1] = g + m; out[2] = b + m;
}

static void dot_colors(double d, double start[3], double end[3]) {
    double sh = round2(clip01(map_range(d - 30, 0, 380, 0.2, 0.8)));
    double eh = round2(clip01(map_range(d, 0, 380, 0.2, 0.8)));
    double sat = round2(d < 400 ? 0.6 : clip01(map_range(d, 400, 700, 0.6, 0.0)));
    hsl(sh, sat, 0.7, start);
    hsl(eh, sat, 0.7, end);
}

static void set_gradient(cairo_t *cr, const Dot *d, double fx, double fy) {
    double s[3], e[3];
    dot_colors(hypot(d->cx - fx, d->cy - fy), s, e);
    /* In the dot's own (rotated) square: from its center to its bottom-right corner. */
    cairo_pattern_t *p = cairo_pattern_create_linear(0, 0, d->size / 2, d->size / 2);
    cairo_pattern_add_color_stop_rgb(p, 0, s[0], s[1], s[2]);
    cairo_pattern_add_color_stop_rgb(p, 1, e[0], e[1], e[2]);
    cairo_pattern_set_extend(p, CAIRO_EXTEND_PAD);
    cairo_set_source(cr, p);
    cairo_pattern_destroy(p);
}

static void rounded_card(cairo_t *cr, double W, double H) {
    double r = 12;
    cairo_new_path(cr);
    cairo_arc(cr, W - r, r, r, -M_PI / 2, 0);
    cairo_arc(cr, W - r, H - r, r, 0, M_PI / 2);
    cairo_arc(cr, r, H - r, r, M_PI / 2, M_PI);
    cairo_arc(cr, r, r, r, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

static void arrow(cairo_t *cr, const Dot *d) {
    cairo_text_extents_t ext;
    cairo_set_font_size(cr, d->size * 0.75);
    cairo_text_extents(cr, "\xe2\x86\x91", &ext);
    cairo_move_to(cr, -ext.x_bearing - ext.width / 2, -ext.y_bearing - ext.height / 2);
    cairo_show_text(cr, "\xe2\x86\x91");
}

static void labels(cairo_t *cr, double W) {
    cairo_text_extents_t ext;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_font_size(cr, 20);
    cairo_move_to(cr, 15, 32);
    cairo_show_text(cr, "Cash");
    cairo_text_extents(cr, "$40", &ext);
    cairo_move_to(cr, W - 15 - ext.x_advance, 32);
    cairo_show_text(cr, "$40");
}

static void naive_frame(cairo_t *cr, Dot *dots, int n, double W, double H, double fx, double fy) {
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_rgba(cr, 0, 0, 0, 0);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    rounded_card(cr, W, H);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_fill_preserve(cr);
    cairo_save(cr);
    cairo_clip(cr);
    for (int i = 0; i < n; i++) {
        cairo_save(cr);
        cairo_translate(cr, dots[i].cx, dots[i].cy);
        cairo_rotate(cr, dots[i].rot);
        set_gradient(cr, &dots[i], fx, fy);
        cairo_arc(cr, 0, 0, dots[i].size / 2, 0, 2 * M_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        arrow(cr, &dots[i]);
        cairo_restore(cr);
    }
    cairo_restore(cr);
    labels(cr, W);
}

typedef struct { cairo_surface_t *mask; int x, y; } Mask;

/* Each dot's circle with its arrow cut out, rendered once into an A8 surface in device pixels. */
static Mask make_mask(const Dot *d, double scale) {
    double r = d->size / 2 * scale;
    int x = (int)floor(d->cx * scale - r - 1), y = (int)floor(d->cy * scale - r - 1);
    int w = (int)ceil(2 * r + 3), h = w;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_A8, w, h);
    cairo_t *cr = cairo_create(s);
    cairo_translate(cr, d->cx * scale - x, d->cy * scale - y);
    cairo_scale(cr, scale, scale);
    cairo_rotate(cr, d->rot);
    cairo_arc(cr, 0, 0, d->size / 2, 0, 2 * M_PI);
    cairo_fill(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    arrow(cr, d);
    cairo_destroy(cr);
    return (Mask){s, x, y};
}

static void expert_frame(cairo_t *cr, Dot *dots, Mask *masks, int n, double scale, double fx, double fy) {
    for (int i = 0; i < n; i++) {
        double s[3], e[3];
        dot_colors(hypot(dots[i].cx - fx, dots[i].cy - fy), s, e);
        cairo_pattern_t *p = cairo_pattern_create_linear(0, 0, dots[i].size / 2, dots[i].size / 2);
        cairo_pattern_add_color_stop_rgb(p, 0, s[0], s[1], s[2]);
        cairo_pattern_add_color_stop_rgb(p, 1, e[0], e[1], e[2]);
        cairo_pattern_set_extend(p, CAIRO_EXTEND_PAD);
        /* The gradient lives in the dot's turned square: device -> dot space. */
        cairo_matrix_t m;
        cairo_matrix_init_translate(&m, dots[i].cx * scale, dots[i].cy * scale);
        cairo_matrix_scale(&m, scale, scale);
        cairo_matrix_rotate(&m, dots[i].rot);
        cairo_matrix_invert(&m);
        cairo_pattern_set_matrix(p, &m);
        cairo_set_source(cr, p);
        cairo_pattern_destroy(p);
        /* OVER, cairo's fast path: the gradient is opaque, so fully covered pixels take the
         * new colors exactly; anti-aliased edges blend with the previous frame's (a
         * simplification in cairo's favour: SOURCE, exact, measured 2-4x slower). */
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
        cairo_mask_surface(cr, masks[i].mask, masks[i].x, masks[i].y);
    }
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "expert";
    int frames = argc > 2 ? atoi(argv[2]) : 2000;
    double scale = argc > 3 ? atof(argv[3]) : 2;
    double W = 350, H = 350 * 2.0 / 3, ox = W / 2, oy = H;
    int pw = (int)lround(W * scale), ph = (int)lround(H * scale);
    Dot dots[400];
    int n = layout(dots, W, H, ox, oy);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
    cairo_t *cr = cairo_create(surface);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    Mask *masks = NULL;
    int expert = strcmp(mode, "expert") == 0;
    if (expert) {
        masks = calloc(n, sizeof *masks);
        for (int i = 0; i < n; i++) masks[i] = make_mask(&dots[i], scale);
        cairo_save(cr);
        cairo_scale(cr, scale, scale);
        naive_frame(cr, dots, n, W, H, ox, oy);   /* the static card once */
        cairo_restore(cr);
    } else {
        cairo_scale(cr, scale, scale);
    }
    double *t = malloc(sizeof(double) * frames);
    for (int f = -20; f < frames; f++) {          /* 20 warm-up frames */
        double fx = (f & 1) ? ox + 900 : ox, fy = (f & 1) ? oy - 700 : oy;
        double t0 = now_ns();
        if (expert) expert_frame(cr, dots, masks, n, scale, fx, fy);
        else naive_frame(cr, dots, n, W, H, fx, fy);
        cairo_surface_flush(surface);
        double t1 = now_ns();
        if (f >= 0) t[f] = t1 - t0;
    }
    if (argc > 4) cairo_surface_write_to_png(surface, argv[4]);
    /* Even frames: focal point at the origin (colorful gradients); odd frames: far away
     * (every dot grey, start == end, which cairo draws as a solid color: its fast case). */
    double mean = 0, even = 0, odd = 0;
    for (int f = 0; f < frames; f++) { mean += t[f]; if (f & 1) odd += t[f]; else even += t[f]; }
    mean /= frames; even /= (frames + 1) / 2; odd /= frames / 2 > 0 ? frames / 2 : 1;
    qsort(t, frames, sizeof(double), cmp);
    printf("{\"program\":\"cairo-%s\",\"cairo\":\"%s\",\"width\":%d,\"height\":%d,\"dots\":%d,\"frames\":%d,"
           "\"median_ns\":%.0f,\"p90_ns\":%.0f,\"min_ns\":%.0f,\"mean_ns\":%.0f,"
           "\"mean_colorful_ns\":%.0f,\"mean_grey_ns\":%.0f}\n",
           mode, cairo_version_string(), pw, ph, n, frames, t[frames / 2], t[frames * 9 / 10], t[0], mean, even, odd);
    return 0;
}
