//! A scenario given as Python objects, as TOML values: dicts are tables, lists are arrays
//! (a list of dicts an array of tables), and numbers, strings and booleans are themselves.
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A dict as a TOML table (its keys must be strings).
pub fn table(d: &Bound<'_, PyDict>) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("scenario key {k:?} is not a string")))?;
        let value = value(&v).map_err(|e| PyTypeError::new_err(format!("{key}: {e}")))?;
        t.insert(key, value);
    }
    Ok(t)
}

/// One value.
fn value(v: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    // bool before int: Python's True is an int too.
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(v.extract()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(table(d)?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<toml::Value>> = v.try_iter()?.map(|x| value(&x?)).collect();
        return Ok(toml::Value::Array(items?));
    }
    Err(PyTypeError::new_err(format!(
        "{} is not a scenario value (dict, list, number, string or bool)",
        v.get_type().name()?
    )))
}
