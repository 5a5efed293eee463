"""talus from Python: the module's tests (python/test.sh builds the wheel and runs them).

Each checks against a closed form or an independent computation: free fall, a resting
column's floor force against its weight, a restart against the straight run, a scenario
from dicts against the same from TOML.
"""
import math
import os
import tempfile
import unittest

import numpy as np

import talus

G = 9.81
DENSITY = 2500.0

# Discs of 1 mm on a floor at y = 0 in a box of frictionless walls, falling from a
# lattice (friction on the sides could lock in a part of the weight, either way).
COLUMN = """
title = "column"
gravity = [0.0, -9.81]
[domain]
min = [-0.001, -0.001]
max = [0.021, 0.081]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.3
friction = 0.5
[[material]]
name = "wall"
density = 2500.0
kn = 1.0e5
restitution = 0.3
friction = 0.0
[[wall]]
kind = "box"
material = "wall"
min = [0.0, 0.0]
max = [0.02, 0.08]
[[particles]]
material = "grain"
count = 40
radius = { kind = "fixed", value = 1.0e-3 }
packing = "lattice"
region = { min = [0.0, 0.0], max = [0.02, 0.03] }
[run]
steps = 10
"""

# COLUMN with a gate body that a second stage removes.
GATED = COLUMN.replace(
    "[run]\nsteps = 10\n",
    '[[body]]\nname = "gate"\nmaterial = "grain"\n'
    "vertices = [[0.005, 0.05], [0.015, 0.05], [0.015, 0.055], [0.005, 0.055]]\n"
    '[[stage]]\nsteps = 10\n[[stage]]\nname = "open"\nsteps = 10\nremove = ["gate"]\n',
)


class Views(unittest.TestCase):
    def test_views_share_the_engines_memory_and_block_a_step(self):
        sim = talus.Simulation.from_toml(COLUMN)
        self.assertEqual(sim.dimension, 2)
        x, y = sim.positions()
        a, b = np.asarray(y), np.asarray(y)
        # Two arrays of one view share one block: the engine's, not copies.
        self.assertTrue(np.shares_memory(a, b))
        self.assertEqual(a.shape, (len(sim),))
        self.assertEqual(a.dtype, np.float64)
        self.assertFalse(a.flags.writeable)
        self.assertEqual(sim.views_held, 2)
        with self.assertRaises(RuntimeError):
            sim.run(1)
        del a, b
        self.assertEqual(sim.views_held, 0)
        sim.run(1)
        ids = np.asarray(sim.ids())
        self.assertEqual(ids.dtype, np.uint64)
        self.assertEqual(sorted(ids.tolist()), list(range(1, len(sim) + 1)))
        m = memoryview(sim.radii())
        self.assertTrue(m.readonly)
        self.assertEqual((m.format, m.itemsize, len(m)), ("d", 8, len(sim)))
        m.release()

    def test_a_free_disc_falls_as_the_closed_form(self):
        text = COLUMN.replace("count = 40", "count = 1").replace(
            "region = { min = [0.0, 0.0], max = [0.02, 0.03] }",
            "region = { min = [0.008, 0.05], max = [0.012, 0.054] }",
        )
        sim = talus.Simulation.from_toml(text)
        y0 = np.array(sim.positions()[1])[0]
        sim.run(2000)
        t = sim.time
        y = np.array(sim.positions()[1])[0]
        # Velocity Verlet is exact under constant gravity.
        self.assertAlmostEqual(y, y0 - 0.5 * G * t * t, delta=1e-12)
        vy = np.array(sim.velocities()[1])[0]
        self.assertAlmostEqual(vy, -G * t, delta=1e-12)


class Analysis(unittest.TestCase):
    def test_a_resting_column_presses_the_floor_with_its_weight(self):
        sim = talus.Simulation.from_toml(COLUMN)
        sim.run(60000, analyse=True)
        a = sim.analysis()
        r = np.array(sim.radii())
        weight = (DENSITY * math.pi * r**2).sum() * G
        floor = a["wall_forces"][0]
        self.assertLess(a["unbalanced"], 0.01)
        self.assertAlmostEqual(floor[1] / -weight, 1.0, delta=1e-3)
        c = sim.contacts()
        self.assertEqual(len(c["i"]), sim.energies()["contacts"])
        self.assertEqual(len(c["force"][0]), 2)
        # The stress tensor: symmetric as the grains are at rest (the moments balance),
        # and compressive.
        s = np.array(a["stress"])
        self.assertAlmostEqual(s[0][1], s[1][0], delta=1e-3 * abs(s[1][1]))
        self.assertLess(s[1][1], 0.0)


class Scenarios(unittest.TestCase):
    def test_a_scenario_from_dicts_runs_as_from_toml(self):
        d = {
            "title": "column",
            "gravity": [0.0, -9.81],
            "domain": {"min": [-0.001, -0.001], "max": [0.021, 0.081]},
            "material": [
                {"name": "grain", "density": 2500.0, "kn": 1.0e5, "restitution": 0.3, "friction": 0.5},
                {"name": "wall", "density": 2500.0, "kn": 1.0e5, "restitution": 0.3, "friction": 0.0},
            ],
            "wall": [{"kind": "box", "material": "wall", "min": [0.0, 0.0], "max": [0.02, 0.08]}],
            "particles": [
                {
                    "material": "grain",
                    "count": 40,
                    "radius": {"kind": "fixed", "value": 1.0e-3},
                    "packing": "lattice",
                    "region": {"min": [0.0, 0.0], "max": [0.02, 0.03]},
                }
            ],
            "run": {"steps": 10},
        }
        a = talus.Simulation.from_dict(d)
        b = talus.Simulation.from_toml(COLUMN)
        a.run(3000)
        b.run(3000)
        for u, v in zip(a.positions(), b.positions()):
            self.assertTrue(np.array_equal(np.asarray(u), np.asarray(v)))

    def test_bad_scenarios_are_refused_with_their_line(self):
        with self.assertRaises(ValueError) as e:
            talus.Simulation.from_toml(COLUMN.replace("kn = 1.0e5", "kn = -1.0"))
        # <python>:LINE:COLUMN: key: why
        self.assertIn(":10:6: material[0].kn: must be > 0", str(e.exception))
        with self.assertRaises(TypeError):
            talus.Simulation.from_dict({"domain": {"min": object()}})

    def test_spheres_in_3d(self):
        text = """
dimension = 3
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.001, -0.001, -0.001]
max = [0.011, 0.011, 0.021]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e3
restitution = 0.3
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0, 0.0]
max = [0.01, 0.01, 0.02]
[[particles]]
material = "grain"
count = 30
radius = { kind = "fixed", value = 1.0e-3 }
packing = "lattice"
region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }
[run]
steps = 10
"""
        sim = talus.Simulation.from_toml(text)
        self.assertEqual(sim.dimension, 3)
        self.assertEqual(len(sim.positions()), 3)
        self.assertEqual(len(sim.angular_velocities()), 3)
        sim.run(100)
        self.assertGreater(sim.energies()["kinetic"], 0.0)

    def test_a_stage_removes_its_gate(self):
        sim = talus.Simulation.from_toml(GATED)
        self.assertEqual(sim.stages, ["stage 1", "open"])
        n = len(sim)
        sim.begin_stage(1)
        self.assertEqual(len(sim), n - 1)
        with self.assertRaises(IndexError):
            sim.begin_stage(5)

    def test_a_restarted_run_removes_the_same_gate(self):
        sim = talus.Simulation.from_toml(GATED)
        sim.run(100)
        with tempfile.TemporaryDirectory() as d:
            again = talus.Simulation.restart(sim.write_checkpoint(d))
        gate = max(np.asarray(again.ids()).tolist())  # the body comes after the grains
        again.begin_stage(1)
        ids = np.asarray(again.ids()).tolist()
        self.assertNotIn(gate, ids)
        self.assertEqual(len(ids), len(sim) - 1)


class Checkpoints(unittest.TestCase):
    def test_a_restart_goes_on_bit_for_bit(self):
        sim = talus.Simulation.from_toml(COLUMN)
        sim.run(2000)
        with tempfile.TemporaryDirectory() as d:
            path = sim.write_checkpoint(d)
            self.assertTrue(os.path.exists(path))
            again = talus.Simulation.restart(path)
        self.assertEqual(again.step, 2000)
        sim.run(3000)
        again.run(3000)
        for u, v in zip(sim.positions(), again.positions()):
            self.assertTrue(np.array_equal(np.asarray(u), np.asarray(v)))


if __name__ == "__main__":
    unittest.main()
