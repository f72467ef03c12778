import Backdrop
import Raster
import Wayland

/// One output's part of the desktop background: a layer surface on the `bottom` layer
/// (above the `background` layer, where swaybg and the compositor's own wallpaper are),
/// anchored to every edge, under panels (exclusive zone -1), taking no keyboard and no
/// pointer (an empty input region: clicks reach the desktop), showing a buffer of the
/// output's size in device pixels (`set_buffer_scale`): the fill, and the card
/// (`BackgroundComposer`).
///
/// Whether it is seen comes from frame callbacks: a compositor sends `done` only for
/// surfaces it shows, and sway sends none to a surface a fullscreen window covers
/// (docs/BACKGROUND.md has what others do). Every drawn frame asks for one, and a still
/// card is probed with an empty commit that asks for one (`step`), at most once every
/// `Timing.probeInterval`. A callback
/// not answered within `Timing.hiddenAfter` makes the surface hidden; the callback stays
/// asked, and its answer, when the surface is shown again, makes it seen again.
final class BackgroundOutput {
    /// When the compositor is asked and when silence means hidden, seconds.
    enum Timing {
        /// An empty commit asks again at most this often (never more than once a second).
        static let probeInterval = 1.2
        /// No answer for this long: not shown. Together: a covered surface is known hidden
        /// at most probeInterval + hiddenAfter = 1.8 s after it was covered.
        static let hiddenAfter = 0.6
        /// A probe may go with another output's when its own is due within this long (and
        /// its last was a second ago or more), so outputs are asked together: one wakeup,
        /// not one per output.
        static let alignment = 0.2
    }

    enum Visibility: Equatable { case unknown, shown, hidden }

    let output: Output
    /// Where its buffers come from.
    private let shm: Shm
    private let surface: Surface
    private let layerSurface: LayerSurface
    /// The size of the last configure, surface units.
    private(set) var size: (width: Int, height: Int)?
    private var unacknowledged: UInt32?
    /// The output's scale the buffers were made for.
    private var bufferScale = 0
    private var buffers: [ShmBuffer] = []
    /// Buffers of a former size or scale, kept until the compositor releases them.
    private var retired: [ShmBuffer] = []
    /// Buffers attached at least once since they were made (a first attach damages all of it).
    private var attachedOnce: Set<ObjectIdentifier> = []
    private var composer: BackgroundComposer?
    /// The frame number the surface shows (0: the fill alone).
    private(set) var drawnFrame: UInt64 = 0
    private var callback: FrameCallback?
    /// The outstanding callback went with a drawn buffer (awaited at once), not a probe.
    private var callbackCarriesFrame = false
    /// When a callback was last asked for.
    private(set) var lastAsked = -Double.infinity
    private(set) var visibility = Visibility.unknown
    /// The visibility `step` last reported.
    private var reported = Visibility.unknown
    /// The compositor closed the layer surface (its output is going away).
    private(set) var closed = false
    /// Something other than a frame needs a new buffer: a configure, a new scale.
    private var stale = true

    /// Makes the layer surface and commits it without a buffer; the compositor answers
    /// with a configure. Nil when the compositor refuses an object.
    init?(output: Output, compositor: Compositor, shell: LayerShell, shm: Shm, namespace: String) {
        guard let surface = compositor.makeSurface(),
            let layer = shell.makeLayerSurface(surface, on: output, layer: .bottom, namespace: namespace),
            let empty = compositor.makeRegion()
        else { return nil }
        self.output = output
        self.shm = shm
        self.surface = surface
        layerSurface = layer
        layer.setSize(width: 0, height: 0)
        layer.setAnchor(.all)
        layer.setExclusiveZone(-1)
        layer.refuseKeyboard()
        surface.setInputRegion(empty)
        layer.onConfigure = { [unowned self] serial, width, height in
            unacknowledged = serial
            if size.map({ $0.width != width || $0.height != height }) ?? true { stale = true }
            size = (width, height)
        }
        layer.onClosed = { [unowned self] in closed = true }
        surface.commit()
    }

    /// The output's scale changed (its `done`): the next draw makes new buffers.
    func scaleMayHaveChanged() {
        if output.scale != bufferScale { stale = true }
    }

    /// Whether `draw` would draw now: configured, not known hidden, no drawn frame
    /// waiting for its callback; and something new to show.
    func wantsToDraw(frame: UInt64) -> Bool {
        guard size != nil, !closed, visibility != .hidden, !(callback != nil && callbackCarriesFrame) else {
            return false
        }
        return stale || frame != drawnFrame || unacknowledged != nil
    }

    /// Whether the loop must read the connection at once rather than at its next timer:
    /// a configure not yet answered with a buffer, or a drawn frame waiting for its callback.
    var awaitsCompositor: Bool {
        !closed && (size == nil || stale || (callback != nil && callbackCarriesFrame && visibility != .hidden))
    }

    /// Draws `frame` (nil: the fill alone) in a free buffer and commits it with a frame
    /// callback. Returns false when no buffer is free (both still read by the compositor).
    func draw(_ frame: Frame?, fill: UInt32, now: Double) throws(WaylandError) -> Bool {
        guard let size else { return false }
        if let serial = unacknowledged {
            layerSurface.acknowledge(serial)
            unacknowledged = nil
        }
        let scale = output.scale
        if stale || scale != bufferScale || composer?.placement.frameWidth != frame?.width
            || composer?.placement.frameHeight != frame?.height
        {
            // New buffers; the old ones go once the compositor has released them.
            retired += buffers.filter(\.busy)
            buffers = []
            attachedOnce = []
            bufferScale = scale
            composer = frame.flatMap { f in
                BackgroundPlacement(
                    surfaceWidth: size.width, surfaceHeight: size.height, outputScale: scale,
                    frameWidth: f.width, frameHeight: f.height
                ).map { BackgroundComposer(placement: $0, fill: fill) }
            }
            stale = false
        }
        retired.removeAll { !$0.busy }
        let width = size.width * scale, height = size.height * scale
        if buffers.count < 2, buffers.allSatisfy(\.busy) {
            let b = try shm.makeBuffer(width: width, height: height)
            Pixmap(base: b.pixels, width: width, height: height, stride: b.stride).fill(fill & 0xFF_FFFF)
            buffers.append(b)
        }
        guard let buffer = buffers.first(where: { !$0.busy }) else { return false }
        let pixmap = Pixmap(base: buffer.pixels, width: width, height: height, stride: buffer.stride)
        var damage = (x: 0, y: 0, width: width, height: height)
        if let frame, let composer {
            frame.withPixels { composer.paintCard(frame: $0, stride: $1, into: pixmap) }
            let p = composer.placement
            if attachedOnce.contains(ObjectIdentifier(buffer)) {
                damage = (p.cardX, p.cardY, p.cardWidth, p.cardHeight)
            }
        }
        surface.setBufferScale(scale)
        surface.attach(buffer)
        buffer.busy = true
        attachedOnce.insert(ObjectIdentifier(buffer))
        surface.damageBuffer(x: damage.x, y: damage.y, width: damage.width, height: damage.height)
        ask(now: now, carriesFrame: true)
        surface.commit()
        drawnFrame = frame?.number ?? 0
        return true
    }

    /// Asks for a frame callback with the next commit, unless one is outstanding.
    private func ask(now: Double, carriesFrame: Bool) {
        if callback == nil {
            callback = surface.requestFrame { [unowned self] _ in
                callback = nil
                callbackCarriesFrame = false
                visibility = .shown
            }
            lastAsked = now
        }
        if carriesFrame { callbackCarriesFrame = true }
    }

    /// When this output next needs the loop: its probe or the end of its callback's grace.
    func nextDeadline() -> Double? {
        if closed || size == nil { return nil }
        if callback != nil { return visibility == .hidden ? nil : lastAsked + Timing.hiddenAfter }
        return visibility == .shown ? lastAsked + Timing.probeInterval : nil
    }

    /// After the events were read at `now`: an unanswered callback past its grace makes
    /// the surface hidden; a shown, still surface whose probe is due (or due within
    /// `Timing.alignment`, to go with the others) is probed. Returns the visibility when
    /// it changed since the last step (a callback's answer, or silence).
    func step(now: Double) -> Visibility? {
        if callback != nil, visibility != .hidden, now - lastAsked >= Timing.hiddenAfter {
            visibility = .hidden
        }
        if callback == nil, visibility == .shown, size != nil, !closed,
            now - lastAsked >= max(1.0, Timing.probeInterval - Timing.alignment)
        {
            ask(now: now, carriesFrame: false)
            surface.commit()
        }
        guard visibility != reported else { return nil }
        reported = visibility
        return visibility
    }
}
