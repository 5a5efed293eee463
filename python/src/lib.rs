//! talus from Python (issue 20, item 5): load a scenario (a file, TOML text, or Python
//! dicts and lists), step it, read the particle arrays without copies (the buffer
//! protocol: `numpy.asarray(view)` shares the engine's memory), read energies, the
//! analysis and the contact forces, begin stages, write and restart from checkpoints.
//! Both dimensions: a scenario's `dimension` picks the 2D or the 3D engine.
use std::cell::Cell;
use std::ffi::{c_int, c_void, CString};
use std::path::Path;
use std::rc::Rc;

use pyo3::exceptions::{PyBufferError, PyIndexError, PyRuntimeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

mod convert;

/// A simulation of either dimension, with what came with its scenario.
enum Engine {
    D2(talus_engine::Simulation, Vec<talus_io::stages::StagePlan>),
    D3(talus_engine3d::Simulation, Vec<talus_io3d::stages::StagePlan>),
}

/// The same expression on the simulation of either dimension.
macro_rules! on {
    ($e:expr, $s:ident => $body:expr) => {
        match $e {
            Engine::D2($s, _) => $body,
            Engine::D3($s, _) => $body,
        }
    };
}

fn err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// A talus simulation. Its particle arrays (`positions()`, `velocities()`, ...) are views
/// of the engine's own memory: while any of them is held (a numpy array made from one
/// included), the simulation refuses to step, since a step may move that memory. Copy
/// what must outlive a step (`numpy.array(view)`), or `del` the views.
#[pyclass(unsendable, module = "talus")]
struct Simulation {
    engine: Engine,
    /// The scenario's text (checkpoints carry it).
    text: String,
    /// Buffers exported and not yet released: shared with the views, which count their
    /// exports without borrowing the simulation.
    exports: Rc<Cell<usize>>,
    /// The id of the scenario's first `[[body]]`: its stages name bodies by id.
    first_body_id: u64,
}

/// Which array a view shows.
#[derive(Clone, Copy)]
enum Field {
    Position(usize),
    Velocity(usize),
    AngularVelocity(usize),
    Force(usize),
    Radius,
    Id,
    Angle,
}

/// A read-only view of one particle array (one axis of a vector field: the engine keeps
/// an array per axis). `numpy.asarray(view)` shares its memory; `memoryview(view)` too.
#[pyclass(unsendable, module = "talus")]
struct ArrayView {
    sim: Py<Simulation>,
    field: Field,
    exports: Rc<Cell<usize>>,
}

/// The checkpoint section in which `write_checkpoint` keeps the first body's id (`talus
/// run` keeps it in its stage record, "run.stage").
const BODY_RECORD: &str = "bodies.first_id";

impl Simulation {
    fn from_text(text: String, name: &str) -> PyResult<Simulation> {
        let path = Path::new(name);
        let dimension =
            talus_io::scenario::scenario_dimension(&text, path).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let engine = if dimension == 3 {
            let sc =
                talus_io3d::scenario::parse_scenario(&text, path).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let b = talus_io3d::build::build(&sc, path).map_err(|e| PyValueError::new_err(e.to_string()))?;
            (Engine::D3(b.sim, b.stages), b.first_body_id)
        } else {
            let sc =
                talus_io::scenario::parse_scenario(&text, path).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let b = talus_io::build::build(&sc, path).map_err(|e| PyValueError::new_err(e.to_string()))?;
            (Engine::D2(b.sim, b.stages), b.first_body_id)
        };
        let (engine, first_body_id) = engine;
        Ok(Simulation {
            engine,
            text,
            exports: Rc::default(),
            first_body_id,
        })
    }

    fn free(&self) -> PyResult<()> {
        if self.exports.get() > 0 {
            return Err(PyRuntimeError::new_err(format!(
                "{} particle array view(s) are still held: a step may move the memory they show; copy what \
                 you keep (numpy.array(view)) or del them first",
                self.exports.get()
            )));
        }
        Ok(())
    }

    /// The slice a field shows (f64 or u64 as bytes, with its format).
    fn slice(&self, field: Field) -> PyResult<(*const u8, usize, &'static str)> {
        fn f(v: &[f64]) -> (*const u8, usize, &'static str) {
            (v.as_ptr() as *const u8, v.len(), "d")
        }
        let bad = || PyIndexError::new_err("no such axis or component");
        on!(&self.engine, s => {
            let ps = &s.particles;
            Ok(match field {
                Field::Position(a) => f(ps.pos.get(a).ok_or_else(bad)?),
                Field::Velocity(a) => f(ps.vel.get(a).ok_or_else(bad)?),
                Field::AngularVelocity(a) => f(ps.omega.get(a).ok_or_else(bad)?),
                Field::Force(a) => f(ps.force.get(a).ok_or_else(bad)?),
                Field::Radius => f(&ps.radius),
                Field::Angle => f(&ps.angle),
                Field::Id => (ps.id.as_ptr() as *const u8, ps.id.len(), "Q"),
            })
        })
    }

    fn dimension(&self) -> usize {
        match self.engine {
            Engine::D2(..) => 2,
            Engine::D3(..) => 3,
        }
    }

    fn views(slf: &Bound<'_, Self>, make: impl Fn(usize) -> Field, count: usize) -> PyResult<Py<PyTuple>> {
        let views: Vec<Py<ArrayView>> = (0..count).map(|a| Self::view(slf, make(a))).collect::<PyResult<_>>()?;
        Ok(PyTuple::new(slf.py(), views)?.unbind())
    }

    fn view(slf: &Bound<'_, Self>, field: Field) -> PyResult<Py<ArrayView>> {
        let exports = slf.borrow().exports.clone();
        Py::new(
            slf.py(),
            ArrayView {
                sim: slf.clone().unbind(),
                field,
                exports,
            },
        )
    }
}

#[pymethods]
impl Simulation {
    /// A scenario file (TOML), of either dimension.
    #[staticmethod]
    fn load(path: &str) -> PyResult<Simulation> {
        let text = std::fs::read_to_string(path).map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?;
        let s = Self::from_text(text, path)?;
        Ok(s)
    }

    /// A scenario given as TOML text (`name` names it in error messages and resolves
    /// relative paths, e.g. of LAMMPS data files).
    #[staticmethod]
    #[pyo3(signature = (text, name = "<python>"))]
    fn from_toml(text: String, name: &str) -> PyResult<Simulation> {
        Self::from_text(text, name)
    }

    /// A scenario given as Python objects: dicts for tables, lists of dicts for arrays
    /// of tables (`{"material": [{...}], "run": {"steps": 1000}}`), numbers, strings and
    /// booleans, as a scenario file has them.
    #[staticmethod]
    fn from_dict(scenario: &Bound<'_, PyDict>) -> PyResult<Simulation> {
        let table = convert::table(scenario)?;
        let text = toml::to_string(&table).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Self::from_text(text, "<python dict>")
    }

    /// A checkpoint file (`talus run --checkpoint-every`, or `write_checkpoint`): the run
    /// goes on from it bit for bit.
    #[staticmethod]
    fn restart(path: &str) -> PyResult<Simulation> {
        let p = Path::new(path);
        let dimension = talus_io::checkpoint::file_dimension(p)
            .ok_or_else(|| PyValueError::new_err(format!("{path}: not a talus checkpoint")))?;
        let (engine, text, first) = if dimension == 3 {
            let ck = talus_io3d::checkpoint::Checkpoint::open(p).map_err(err)?;
            let text = ck.text("scenario.toml").unwrap_or_default().to_string();
            let sc = talus_io3d::scenario::parse_scenario(&text, p).map_err(err)?;
            let first = first_body_id(&ck, !sc.stages.is_empty())?;
            let stages = talus_io3d::stages::stage_plans(&sc, first);
            (Engine::D3(ck.simulation().map_err(err)?, stages), text, first)
        } else {
            let ck = talus_io::checkpoint::Checkpoint::open(p).map_err(err)?;
            let text = ck.text("scenario.toml").unwrap_or_default().to_string();
            let sc = talus_io::scenario::parse_scenario(&text, p).map_err(err)?;
            let first = first_body_id(&ck, !sc.stages.is_empty())?;
            let stages = talus_io::stages::stage_plans(&sc, first);
            (Engine::D2(ck.simulation().map_err(err)?, stages), text, first)
        };
        Ok(Simulation {
            engine,
            text,
            exports: Rc::default(),
            first_body_id: first,
        })
    }

    /// 2 or 3.
    #[getter(dimension)]
    fn get_dimension(&self) -> usize {
        self.dimension()
    }

    /// Steps taken.
    #[getter]
    fn step(&self) -> u64 {
        on!(&self.engine, s => s.step)
    }

    /// Simulated time (s).
    #[getter]
    fn time(&self) -> f64 {
        on!(&self.engine, s => s.time)
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        on!(&self.engine, s => s.config.dt)
    }

    fn __len__(&self) -> usize {
        on!(&self.engine, s => s.len())
    }

    /// Array views held now (a step is refused while any is).
    #[getter]
    fn views_held(&self) -> usize {
        self.exports.get()
    }

    /// Step `steps` times. `analyse`: keep the contact forces of the last step, for
    /// `analysis()` and `contacts()`. Stages and outflow regions are `talus run`'s: here
    /// a stage begins with `begin_stage`.
    #[pyo3(signature = (steps, analyse = false))]
    fn run(&mut self, steps: u64, analyse: bool) -> PyResult<()> {
        self.free()?;
        on!(&mut self.engine, s => {
            if analyse && steps > 0 {
                s.run(steps - 1).map_err(err)?;
                s.log_next_run();
                s.run(1).map_err(err)
            } else {
                s.run(steps).map_err(err)
            }
        })
    }

    /// The scenario's stage names, in order.
    #[getter]
    fn stages(&self) -> Vec<String> {
        match &self.engine {
            Engine::D2(_, st) => st.iter().map(|p| p.name.clone()).collect(),
            Engine::D3(_, st) => st.iter().map(|p| p.name.clone()).collect(),
        }
    }

    /// Make stage `k`'s changes now (its walls removed, held or moved, drums started,
    /// gravity set), as `talus run` does when the stage begins; its steps are the
    /// caller's to run.
    fn begin_stage(&mut self, k: usize) -> PyResult<()> {
        self.free()?;
        let missing = || PyIndexError::new_err(format!("no stage {k}"));
        match &mut self.engine {
            Engine::D2(s, st) => st.get(k).ok_or_else(missing)?.begin(s).map_err(err),
            Engine::D3(s, st) => st.get(k).ok_or_else(missing)?.begin(s).map_err(err),
        }
    }

    /// Centres: a view per axis.
    fn positions(slf: &Bound<'_, Self>) -> PyResult<Py<PyTuple>> {
        let d = slf.borrow().dimension();
        Self::views(slf, Field::Position, d)
    }

    /// Velocities: a view per axis.
    fn velocities(slf: &Bound<'_, Self>) -> PyResult<Py<PyTuple>> {
        let d = slf.borrow().dimension();
        Self::views(slf, Field::Velocity, d)
    }

    /// Angular velocities: one view in 2D (about z), three in 3D.
    fn angular_velocities(slf: &Bound<'_, Self>) -> PyResult<Py<PyTuple>> {
        let n = if slf.borrow().dimension() == 2 { 1 } else { 3 };
        Self::views(slf, Field::AngularVelocity, n)
    }

    /// The forces of the last step: a view per axis.
    fn forces(slf: &Bound<'_, Self>) -> PyResult<Py<PyTuple>> {
        let d = slf.borrow().dimension();
        Self::views(slf, Field::Force, d)
    }

    /// Radii (bounding radii for polygons).
    fn radii(slf: &Bound<'_, Self>) -> PyResult<Py<ArrayView>> {
        Self::view(slf, Field::Radius)
    }

    /// Orientation angles (2D; zero for spheres).
    fn angles(slf: &Bound<'_, Self>) -> PyResult<Py<ArrayView>> {
        Self::view(slf, Field::Angle)
    }

    /// Particle ids (unsigned 64-bit): the engine reorders particles, ids follow them.
    fn ids(slf: &Bound<'_, Self>) -> PyResult<Py<ArrayView>> {
        Self::view(slf, Field::Id)
    }

    /// Kinetic, rotational and elastic energy (J), touching pairs and wall contacts.
    fn energies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        on!(&self.engine, s => {
            let e = s.energies();
            d.set_item("kinetic", e.kinetic)?;
            d.set_item("rotational", e.rotational)?;
            d.set_item("elastic", e.elastic)?;
            d.set_item("contacts", e.contacts)?;
            d.set_item("wall_contacts", e.wall_contacts)?;
        });
        Ok(d)
    }

    /// The analysis of the last step (run with `analyse=True`): the stress tensor (Love-
    /// Weber over the domain; compression negative), coordination numbers, rattlers,
    /// Yade's unbalanced-force ratio, energies and the force on each wall.
    fn analysis<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        on!(&mut self.engine, s => {
            let a = s.analyse(None).map_err(err)?;
            d.set_item("step", a.step)?;
            d.set_item("time", a.time)?;
            d.set_item("stress", a.stress.iter().map(|r| r.to_vec()).collect::<Vec<_>>())?;
            d.set_item("coordination", a.coordination)?;
            d.set_item("coordination_held", a.coordination_held)?;
            d.set_item("rattlers", a.rattlers)?;
            d.set_item("unbalanced", a.unbalanced)?;
            d.set_item("kinetic", a.kinetic)?;
            d.set_item("rotational", a.rotational)?;
            d.set_item("potential", a.potential)?;
            d.set_item("wall_forces", a.wall_forces.iter().map(|f| f.to_vec()).collect::<Vec<_>>())?;
        });
        Ok(d)
    }

    /// The touching pairs of the last step (run with `analyse=True`): lists of the ids of
    /// both particles and the force on the first (a list per pair).
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        on!(&self.engine, s => {
            let log = s
                .contact_log()
                .ok_or_else(|| PyRuntimeError::new_err("no contact forces kept: run(steps, analyse=True) first"))?;
            let ids = &s.particles.id;
            let pairs: Vec<_> = log.pairs().collect();
            d.set_item("i", pairs.iter().map(|c| ids[c.i as usize]).collect::<Vec<_>>())?;
            d.set_item("j", pairs.iter().map(|c| ids[c.j as usize]).collect::<Vec<_>>())?;
            d.set_item("force", pairs.iter().map(|c| c.f.to_vec()).collect::<Vec<_>>())?;
        });
        Ok(d)
    }

    /// Write a checkpoint into the folder `dir` (made if needed): its path. It carries
    /// the scenario; `Simulation.restart(path)` and `talus restart` go on from it.
    fn write_checkpoint(&self, dir: &str) -> PyResult<String> {
        let hash = talus_io::checkpoint::fnv1a(self.text.as_bytes());
        let extras = vec![
            ("scenario.toml", self.text.clone().into_bytes()),
            (
                BODY_RECORD,
                format!("first_body_id = {}\n", self.first_body_id).into_bytes(),
            ),
        ];
        let last = match &self.engine {
            Engine::D2(s, _) => {
                let mut c =
                    talus_io::checkpointer::Checkpointer::new(Path::new(dir), "checkpoint", 1_000_000, hash, extras, s)
                        .map_err(err)?;
                c.write(s).map_err(err)?;
                c.finish().map_err(err)?.last
            }
            Engine::D3(s, _) => {
                let mut c = talus_io3d::checkpointer::Checkpointer::new(
                    Path::new(dir),
                    "checkpoint",
                    1_000_000,
                    hash,
                    extras,
                    s,
                )
                .map_err(err)?;
                c.write(s).map_err(err)?;
                c.finish().map_err(err)?.last
            }
        };
        last.map(|p| p.display().to_string())
            .ok_or_else(|| PyRuntimeError::new_err("no checkpoint was written"))
    }

    fn __repr__(&self) -> String {
        format!(
            "<talus.Simulation {}D: {} particles, step {}, t = {:.6e} s>",
            self.dimension(),
            self.__len__(),
            self.step(),
            self.time()
        )
    }
}

/// The first body id a checkpoint keeps (`talus run`'s stage record, or `write_checkpoint`'s
/// own): its stages name bodies by id. Without one, 0 where the scenario has no stages
/// (nothing asks for it), an error where it has.
fn first_body_id<C: RecordText>(ck: &C, staged: bool) -> PyResult<u64> {
    let kept = [talus_io::stages::STAGE_RECORD, BODY_RECORD]
        .iter()
        .find_map(|name| talus_io::stages::record_value(ck.record_text(name)?, "first_body_id"));
    match (kept, staged) {
        (Some(id), _) => Ok(id),
        (None, false) => Ok(0),
        (None, true) => Err(PyValueError::new_err(
            "the checkpoint keeps no first body id (section run.stage or bodies.first_id), which its stages need",
        )),
    }
}

/// A checkpoint's text sections, for either dimension's reader.
trait RecordText {
    fn record_text(&self, name: &str) -> Option<&str>;
}

impl RecordText for talus_io::checkpoint::Checkpoint {
    fn record_text(&self, name: &str) -> Option<&str> {
        self.text(name)
    }
}

impl RecordText for talus_io3d::checkpoint::Checkpoint {
    fn record_text(&self, name: &str) -> Option<&str> {
        self.text(name)
    }
}

#[pymethods]
impl ArrayView {
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.sim.borrow(py).slice(self.field)?.1)
    }

    /// The view's items as a list (a copy).
    fn tolist(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        let sim = self.sim.borrow(py);
        let (ptr, n, format) = sim.slice(self.field)?;
        // SAFETY: `slice` gave the pointer and length of a live Vec<f64> or Vec<u64> of
        // the simulation borrowed here; nothing mutates it while this borrow lives.
        let list = if format == "d" {
            let v = unsafe { std::slice::from_raw_parts(ptr as *const f64, n) };
            PyList::new(py, v)?
        } else {
            let v = unsafe { std::slice::from_raw_parts(ptr as *const u64, n) };
            PyList::new(py, v)?
        };
        Ok(list.unbind())
    }

    /// The buffer protocol: a read-only, one-dimensional, contiguous array of 8-byte
    /// items, the engine's own memory. The simulation counts the export and refuses to
    /// step until it is released.
    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("view is null"));
        }
        if (flags & ffi::PyBUF_WRITABLE) == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("talus particle arrays are read-only"));
        }
        let (ptr, n, format) = {
            let me = slf.borrow();
            let sim = me
                .sim
                .try_borrow(slf.py())
                .map_err(|_| PyBufferError::new_err("the simulation is busy"))?;
            let slice = sim.slice(me.field)?;
            me.exports.set(me.exports.get() + 1);
            slice
        };
        // SAFETY: `view` is the non-null Py_buffer the interpreter passed to fill. The
        // memory is a live Vec of the simulation, which the exported object (this view,
        // which holds the simulation) keeps alive, and which no step moves while the
        // export is counted (`Simulation::free`). The shape points into the Py_buffer
        // itself (its `len` over `itemsize` is the element count), as CPython allows.
        unsafe {
            (*view).obj = slf.into_any().into_ptr();
            (*view).buf = ptr as *mut c_void;
            (*view).itemsize = 8;
            (*view).len = (n * 8) as isize;
            (*view).readonly = 1;
            (*view).format = if (flags & ffi::PyBUF_FORMAT) == ffi::PyBUF_FORMAT {
                CString::new(format).expect("no NUL").into_raw()
            } else {
                std::ptr::null_mut()
            };
            (*view).ndim = 1;
            // `internal` keeps the element count for `shape` to point at.
            let count = Box::into_raw(Box::new(n as isize));
            (*view).internal = count as *mut c_void;
            (*view).shape = if (flags & ffi::PyBUF_ND) == ffi::PyBUF_ND {
                count
            } else {
                std::ptr::null_mut()
            };
            (*view).strides = if (flags & ffi::PyBUF_STRIDES) == ffi::PyBUF_STRIDES {
                &mut (*view).itemsize
            } else {
                std::ptr::null_mut()
            };
            (*view).suboffsets = std::ptr::null_mut();
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        // SAFETY: the interpreter passes back the Py_buffer `__getbuffer__` filled: its
        // format (if any) and element count were made there by into_raw.
        unsafe {
            if !(*view).format.is_null() {
                drop(CString::from_raw((*view).format));
            }
            if !(*view).internal.is_null() {
                drop(Box::from_raw((*view).internal as *mut isize));
            }
        }
        self.exports.set(self.exports.get().saturating_sub(1));
    }
}

/// The module.
#[pymodule]
fn talus(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_class::<ArrayView>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
