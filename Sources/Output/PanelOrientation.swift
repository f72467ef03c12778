/// How a panel is mounted in its case: the connector property `panel orientation`
/// (drm_connector.c, "panel orientation": Normal, Upside Down, Left Side Up, Right Side
/// Up). The picture is drawn turned the other way so the user sees it upright. As the
/// kernel's own console does (drm_client_rotation() maps Left Side Up to
/// DRM_MODE_ROTATE_90 and Right Side Up to DRM_MODE_ROTATE_270, and DRM rotations are
/// counter-clockwise): Left Side Up turns the picture 90 degrees counter-clockwise,
/// Right Side Up 90 degrees clockwise, Upside Down 180.
package enum PanelOrientation: String, Sendable, Equatable {
    case normal = "Normal"
    case upsideDown = "Upside Down"
    case leftSideUp = "Left Side Up"
    case rightSideUp = "Right Side Up"

    /// The screen as the user sees it: a panel mounted sideways shows a portrait screen
    /// in a landscape mode (and the other way round).
    package func uprightSize(panelWidth: Int, panelHeight: Int) -> (width: Int, height: Int) {
        switch self {
        case .normal, .upsideDown: (panelWidth, panelHeight)
        case .leftSideUp, .rightSideUp: (panelHeight, panelWidth)
        }
    }

    /// The panel pixel (scanout coordinates) that shows upright pixel (x, y).
    @inline(__always)
    package func panelPixel(x: Int, y: Int, panelWidth: Int, panelHeight: Int) -> (x: Int, y: Int) {
        switch self {
        case .normal: (x, y)
        case .upsideDown: (panelWidth - 1 - x, panelHeight - 1 - y)
        case .leftSideUp: (y, panelHeight - 1 - x)
        case .rightSideUp: (panelWidth - 1 - y, x)
        }
    }
}
