# %% [markdown]
# # A rotating drum from Python: the surface angle as it turns
#
# `scenarios/drum.toml`: 500 convex polygons in a drum of 64 wall segments turning at
# 5 rad/s. The grains fall into the bottom, are carried up the rising side and avalanche.
# The bed's surface angle is read here as the angle of its long axis: the principal axis
# of the grains' centres (the second moment of their positions), every 10,000 steps,
# straight from the engine's arrays (numpy views, no copies). With matplotlib installed
# the angle is plotted to drum_surface_angle.png; without it, printed.
#
# Run (after python/test.sh, or `pip install` of the wheel it builds):
#     python python/examples/drum_surface_angle.py [STEPS]

# %%
import pathlib
import sys

import numpy as np

import talus

root = pathlib.Path(__file__).resolve().parents[2]
sim = talus.Simulation.load(str(root / "scenarios" / "drum.toml"))
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
print(sim)

# %%
def surface_angle(sim):
    """The angle (degrees from the horizontal) of the grains' long axis."""
    x, y = (np.asarray(v) for v in sim.positions())
    radii = np.asarray(sim.radii())
    # The grains are the particles that are not the drum's segments: these are larger.
    grains = radii < 0.5 * radii.max()
    pts = np.stack([x[grains], y[grains]])
    pts = pts - pts.mean(axis=1, keepdims=True)
    values, vectors = np.linalg.eigh(pts @ pts.T)
    long_axis = vectors[:, np.argmax(values)]
    angle = np.degrees(np.arctan2(long_axis[1], long_axis[0]))
    # An axis has no sign: fold into (-90, 90].
    return (angle + 90.0) % 180.0 - 90.0


# %%
times, angles = [], []
every = 10_000
while sim.step < steps:
    sim.run(min(every, steps - sim.step))
    # The views are made, read and dropped inside surface_angle: a step is refused while
    # any is held.
    times.append(sim.time)
    angles.append(surface_angle(sim))
    print(f"step {sim.step:7d}  t = {sim.time:.4f} s  surface angle {angles[-1]:6.1f} degrees")

# %%
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.plot(times, angles, marker="o")
    plt.xlabel("time (s)")
    plt.ylabel("surface angle (degrees)")
    plt.title("Rotating drum, 500 polygons, 5 rad/s")
    plt.savefig("drum_surface_angle.png", dpi=120)
    print("plotted to drum_surface_angle.png")
except ImportError:
    print("(matplotlib is not installed: the angles are printed above)")
