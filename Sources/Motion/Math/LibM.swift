// The libm functions Motion needs. Motion imports no libc overlay (it must stay
// free of I/O, see Motion.swift), and the standard library has no atan2 or exp, so
// they are bound directly; Package.swift links libm for this target.

@_silgen_name("atan2")
private func libm_atan2(_ y: Double, _ x: Double) -> Double

@_silgen_name("exp")
private func libm_exp(_ x: Double) -> Double

/// `atan2(3)`: the angle of (x, y) in radians, in [-pi, pi].
@inline(__always)
package func atan2(_ y: Double, _ x: Double) -> Double { libm_atan2(y, x) }

/// `exp(3)`.
@inline(__always)
package func exp(_ x: Double) -> Double { libm_exp(x) }

@_silgen_name("sin")
private func libm_sin(_ x: Double) -> Double

@_silgen_name("cos")
private func libm_cos(_ x: Double) -> Double

/// `sin(3)`, radians.
@inline(__always)
func sin(_ x: Double) -> Double { libm_sin(x) }

/// `cos(3)`, radians.
@inline(__always)
func cos(_ x: Double) -> Double { libm_cos(x) }

@_silgen_name("tan")
private func libm_tan(_ x: Double) -> Double

/// `tan(3)`, radians.
@inline(__always)
func tan(_ x: Double) -> Double { libm_tan(x) }
