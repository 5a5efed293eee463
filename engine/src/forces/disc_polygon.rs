//! A disc and a polygon in contact (either order in the pair): the kernel's force from
//! the polygon's boundary point nearest to the disc's centre
//! (`kernels::contact::polygon_polygon::disc_polygon`).
use talus_kernels::contact::disc_disc::ContactForce;
use talus_kernels::contact::polygon_polygon::{disc_polygon, ContactBody, ContactFrame, FrameOut};
use talus_kernels::contact::ContactParams;

/// The force on a (b gets its opposite), or None; where it acts into `frame`. One of a, b
/// is a disc, the other a polygon (`b_polygon` says which). `inv` is the sum of their
/// inverse masses.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn disc_polygon_pair<F: FrameOut>(
    prm: &ContactParams,
    a: &ContactBody,
    b: &ContactBody,
    b_polygon: bool,
    inv: f64,
    xi: &mut f64,
    dt: f64,
    frame: &mut F,
) -> Option<ContactForce> {
    if b_polygon {
        disc_polygon(prm, a, b, inv, xi, dt, frame)
    } else {
        // The kernel takes the disc first: its force on b, turned into the force on a
        // (and the frame's normal from b into a, turned round).
        let mut seen = ContactFrame::default();
        let c = if F::WANTED {
            disc_polygon(prm, b, a, inv, xi, dt, &mut seen)
        } else {
            disc_polygon(prm, b, a, inv, xi, dt, &mut ())
        };
        c.map(|c| {
            frame.put(|| ContactFrame {
                normal: [-seen.normal[0], -seen.normal[1]],
                ..seen
            });
            ContactForce {
                f: [-c.f[0], -c.f[1]],
                ti: [c.tj[0]],
                tj: [c.ti[0]],
                overlap: c.overlap,
            }
        })
    }
}
