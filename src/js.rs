//! The raw Node-API calls of the binding, behind safe functions.
//!
//! Every function here checks the status of each call. A call that fails because
//! JavaScript threw (a getter, a proxy trap, a `then` on a resolved value) leaves that
//! exception pending, and every later Node-API call on the env would fail with
//! `napi_pending_exception`; so a failed call clears it first, and its caller gets an
//! ordinary `Err`.
//!
//! All of it runs on the JS thread of `env`: a `napi_env` is handed to the addon only in
//! calls from that thread, and [`Deferred`] and [`Reference`] are only ever used there.

use std::ffi::{CStr, c_void};
use std::ptr;

use napi::{Status, sys};

/// A handle to a JS value, valid in the current handle scope of the JS thread.
pub type Value = sys::napi_value;

/// `Ok` for `napi_ok`; otherwise clears whatever exception the call left pending.
pub fn check(env: sys::napi_env, status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        return Ok(());
    }
    let _threw = clear_exception(env);
    Err(napi::Error::new(
        Status::from(status),
        "a Node-API call failed",
    ))
}

/// Drops the pending exception, if any (the caller reports the failure its own way);
/// returns whether there was one.
pub fn clear_exception(env: sys::napi_env) -> bool {
    let mut pending = false;
    // SAFETY: `env` is the live env of this JS thread; `pending` is an out-pointer.
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    if pending {
        let mut exception = ptr::null_mut();
        // SAFETY: as above; `exception` is an out-pointer.
        unsafe { sys::napi_get_and_clear_last_exception(env, &mut exception) };
    }
    pending
}

/// `object[name]`.
pub fn named_property(env: sys::napi_env, object: Value, name: &CStr) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: `object` is a live handle and `name` NUL-terminated; `value` is an out-pointer.
    let status = unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut value) };
    check(env, status).map(|()| value)
}

/// `function.call(this, ...args)`.
pub fn call(
    env: sys::napi_env,
    this: Value,
    function: Value,
    args: &[Value],
) -> napi::Result<Value> {
    let mut result = ptr::null_mut();
    // SAFETY: the handles are live; `args` holds `args.len()` of them.
    let status = unsafe {
        sys::napi_call_function(env, this, function, args.len(), args.as_ptr(), &mut result)
    };
    check(env, status).map(|()| result)
}

/// `value.length` of an array (the caller checked it is one).
pub fn array_length(env: sys::napi_env, array: Value) -> napi::Result<u32> {
    let mut length = 0;
    // SAFETY: `array` is a live handle; `length` is an out-pointer.
    let status = unsafe { sys::napi_get_array_length(env, array, &mut length) };
    check(env, status).map(|()| length)
}

/// `object[index]`.
pub fn element(env: sys::napi_env, object: Value, index: u32) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: `object` is a live handle; `value` is an out-pointer.
    let status = unsafe { sys::napi_get_element(env, object, index, &mut value) };
    check(env, status).map(|()| value)
}

/// A JS string from UTF-8 text.
pub fn string(env: sys::napi_env, text: &str) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    let (data, len) = (text.as_ptr().cast(), text.len() as isize);
    // SAFETY: `data` points to `len` bytes of UTF-8 that outlive the call, which copies them.
    let status = unsafe { sys::napi_create_string_utf8(env, data, len, &mut value) };
    check(env, status).map(|()| value)
}

/// A JS string from text known to be ASCII: V8 copies Latin-1 without the UTF-8 decoding
/// pass it would otherwise make.
pub fn ascii_string(env: sys::napi_env, text: &str) -> napi::Result<Value> {
    debug_assert!(text.is_ascii());
    let mut value = ptr::null_mut();
    let (data, len) = (text.as_ptr().cast(), text.len() as isize);
    // SAFETY: as in `string`; ASCII bytes are the same characters in Latin-1.
    let status = unsafe { sys::napi_create_string_latin1(env, data, len, &mut value) };
    check(env, status).map(|()| value)
}

/// A JS number.
pub fn double(env: sys::napi_env, number: f64) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: `value` is an out-pointer.
    let status = unsafe { sys::napi_create_double(env, number, &mut value) };
    check(env, status).map(|()| value)
}

/// `true` or `false`.
pub fn boolean(env: sys::napi_env, flag: bool) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: `value` is an out-pointer.
    let status = unsafe { sys::napi_get_boolean(env, flag, &mut value) };
    check(env, status).map(|()| value)
}

/// `null`.
pub fn null(env: sys::napi_env) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: `value` is an out-pointer.
    let status = unsafe { sys::napi_get_null(env, &mut value) };
    check(env, status).map(|()| value)
}

/// `undefined`.
pub fn undefined(env: sys::napi_env) -> napi::Result<Value> {
    let mut value = ptr::null_mut();
    // SAFETY: `value` is an out-pointer.
    let status = unsafe { sys::napi_get_undefined(env, &mut value) };
    check(env, status).map(|()| value)
}

/// `new Error(message)` with `properties` defined on it as own, enumerable data properties
/// (as `code` and `name` are on Node's own errors). Defining, unlike assigning, runs no
/// setter that a caller may have put on `Error.prototype`.
pub fn error(
    env: sys::napi_env,
    message: &str,
    properties: &[(&CStr, &str)],
) -> napi::Result<Value> {
    let message = string(env, message)?;
    let mut error = ptr::null_mut();
    // SAFETY: `message` is a live string handle; a null `code` means "no code property".
    let status = unsafe { sys::napi_create_error(env, ptr::null_mut(), message, &mut error) };
    check(env, status)?;
    let values = properties
        .iter()
        .map(|(_, value)| string(env, value))
        .collect::<napi::Result<Vec<_>>>()?;
    let descriptors: Vec<sys::napi_property_descriptor> = properties
        .iter()
        .zip(values)
        .map(|((name, _), value)| sys::napi_property_descriptor {
            utf8name: name.as_ptr(),
            name: ptr::null_mut(),
            method: None,
            getter: None,
            setter: None,
            value,
            attributes: sys::PropertyAttributes::writable
                | sys::PropertyAttributes::enumerable
                | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        })
        .collect();
    // SAFETY: `descriptors` holds `descriptors.len()` descriptors whose names are
    // NUL-terminated and whose values are live handles.
    let status =
        unsafe { sys::napi_define_properties(env, error, descriptors.len(), descriptors.as_ptr()) };
    check(env, status).map(|()| error)
}

/// The result of a script: used once per env, to compile a function.
pub fn run_script(env: sys::napi_env, source: &str) -> napi::Result<Value> {
    let source = string(env, source)?;
    let mut result = ptr::null_mut();
    // SAFETY: `source` is a live string handle.
    let status = unsafe { sys::napi_run_script(env, source, &mut result) };
    check(env, status).map(|()| result)
}

/// A native function that JS can call; `data` comes back to `callback` through
/// [`callback_data`].
pub fn function(
    env: sys::napi_env,
    name: &CStr,
    callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> Value,
    data: usize,
) -> napi::Result<Value> {
    let mut function = ptr::null_mut();
    // SAFETY: `name` is NUL-terminated (length -1 = up to the NUL); `data` is an integer
    // carried as a pointer, never dereferenced.
    let status = unsafe {
        sys::napi_create_function(
            env,
            name.as_ptr(),
            -1,
            Some(callback),
            data as *mut c_void,
            &mut function,
        )
    };
    check(env, status).map(|()| function)
}

/// The `data` a function made by [`function`] was created with.
///
/// # Safety
/// `info` must be the callback info of the call being handled on `env`.
pub unsafe fn callback_data(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> napi::Result<usize> {
    let mut data = ptr::null_mut();
    let (no_args, no_this) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: the caller guarantees `info`; null argument pointers ask for no arguments.
    let status =
        unsafe { sys::napi_get_cb_info(env, info, no_args, no_args.cast(), no_this, &mut data) };
    check(env, status).map(|()| data as usize)
}

/// A promise's resolver. Created, settled and dropped on the JS thread only.
pub struct Deferred(sys::napi_deferred);

/// A new promise and its resolver.
pub fn promise(env: sys::napi_env) -> napi::Result<(Deferred, Value)> {
    let (mut deferred, mut promise) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: both are out-pointers.
    let status = unsafe { sys::napi_create_promise(env, &mut deferred, &mut promise) };
    check(env, status).map(|()| (Deferred(deferred), promise))
}

impl Deferred {
    /// Resolves (`Ok`) or rejects (`Err`) the promise. Node frees the resolver whatever
    /// happens, so this consumes it; an exception thrown meanwhile (by a `then` getter on
    /// the value, which V8 turns into the promise's rejection) is cleared.
    pub fn settle(self, env: sys::napi_env, outcome: Result<Value, Value>) {
        let status = match outcome {
            // SAFETY: `self.0` came from `napi_create_promise` on this env and is used once,
            // here, by value; `value` is a live handle.
            Ok(value) => unsafe { sys::napi_resolve_deferred(env, self.0, value) },
            // SAFETY: as above, with the live handle `error`.
            Err(error) => unsafe { sys::napi_reject_deferred(env, self.0, error) },
        };
        // Nothing is left to tell: the promise is settled or its env is going away.
        let _ = check(env, status);
    }
}

/// A strong reference that keeps a JS value alive across calls. Dropping it without
/// [`Reference::delete`] leaks it until its env is torn down.
pub struct Reference(sys::napi_ref);

impl Reference {
    pub fn new(env: sys::napi_env, value: Value) -> napi::Result<Reference> {
        let mut reference = ptr::null_mut();
        // SAFETY: `value` is a live handle; a count of 1 makes the reference strong.
        let status = unsafe { sys::napi_create_reference(env, value, 1, &mut reference) };
        check(env, status).map(|()| Reference(reference))
    }

    pub fn value(&self, env: sys::napi_env) -> napi::Result<Value> {
        let mut value = ptr::null_mut();
        // SAFETY: `self.0` is a reference created on this env and not yet deleted.
        let status = unsafe { sys::napi_get_reference_value(env, self.0, &mut value) };
        check(env, status).map(|()| value)
    }

    pub fn delete(self, env: sys::napi_env) {
        // SAFETY: `self.0` was created on this env and is deleted once, here, by value.
        let status = unsafe { sys::napi_delete_reference(env, self.0) };
        let _ = check(env, status);
    }
}

/// The env's instance data, created by `make` on first use and dropped when the env is
/// torn down. Node keeps the slot per module instance and env.
///
/// # Safety
/// Every call on a given env must name the same `T`.
pub unsafe fn instance_data<T: 'static>(
    env: sys::napi_env,
    make: impl FnOnce() -> T,
) -> napi::Result<&'static T> {
    let mut data = ptr::null_mut();
    // SAFETY: `data` is an out-pointer.
    check(env, unsafe { sys::napi_get_instance_data(env, &mut data) })?;
    if data.is_null() {
        data = Box::into_raw(Box::new(make())).cast();
        // SAFETY: `data` is a leaked `Box<T>`, freed once by `drop_instance_data::<T>`
        // when Node tears the env down.
        let status = unsafe {
            sys::napi_set_instance_data(env, data, Some(drop_instance_data::<T>), ptr::null_mut())
        };
        if let Err(error) = check(env, status) {
            // SAFETY: Node did not take `data`; it is still ours alone.
            drop(unsafe { Box::from_raw(data.cast::<T>()) });
            return Err(error);
        }
    }
    // SAFETY: the slot holds a `Box<T>` (the caller guarantees the type), set above or by
    // an earlier call, alive until the env is torn down, which cannot happen while a call
    // on its JS thread is running.
    Ok(unsafe { &*data.cast::<T>() })
}

unsafe extern "C" fn drop_instance_data<T>(
    _env: sys::napi_env,
    data: *mut c_void,
    _hint: *mut c_void,
) {
    // SAFETY: `data` is the `Box<T>` that `instance_data` leaked; Node calls this once.
    drop(unsafe { Box::from_raw(data.cast::<T>()) });
}
