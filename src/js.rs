//! The raw Node-API calls of the binding: only where napi-rs 3 (checked at 3.16.1) has no
//! safe equivalent. Each function names the gap it fills; everything else in the binding
//! uses napi-rs's safe API.
//!
//! All of it runs on the JS thread of `env`: an `Env` is handed to the addon only in calls
//! from that thread, and [`Deferred`] is only ever used there.

use std::ffi::c_void;
use std::ptr;

use napi::bindgen_prelude::{JsObjectValue, Object, Property, PropertyAttributes};
use napi::{Env, JsValue, Status, Unknown, sys};

/// Drops the pending exception, if any, and says whether there was one.
///
/// Gap: a napi-rs call that fails because JavaScript threw (a getter, a proxy trap) returns
/// `Err` and leaves the exception pending, and every later Node-API call on the env then
/// fails with `napi_pending_exception`; napi-rs has no call that clears it.
pub fn clear_exception(env: &Env) -> bool {
    take_exception(env).is_some()
}

/// The pending exception, if any, taken (no longer pending): what JavaScript threw, for an
/// error's `cause`. The same gap as [`clear_exception`].
pub fn take_exception(env: &Env) -> Option<Unknown<'_>> {
    let mut pending = false;
    // SAFETY: `env` is the live env of this JS thread; `pending` is an out-pointer.
    unsafe { sys::napi_is_exception_pending(env.raw(), &mut pending) };
    if !pending {
        return None;
    }
    let mut exception = ptr::null_mut();
    // SAFETY: as above; `exception` is an out-pointer.
    unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &mut exception) };
    // Wrapped only to be handed on as a value of any type (`Object::from_raw` checks
    // nothing): a live handle of the current scope, which the `Unknown` does not outlive.
    Some(Object::from_raw(env.raw(), exception).to_unknown())
}

/// `result`, with the exception a failure left pending cleared (see [`clear_exception`]).
pub fn cleared<T>(env: &Env, result: napi::Result<T>) -> napi::Result<T> {
    if result.is_err() {
        clear_exception(env);
    }
    result
}

/// `Ok` for `napi_ok`; otherwise clears whatever exception the call left pending.
fn check(env: &Env, status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        return Ok(());
    }
    clear_exception(env);
    Err(napi::Error::new(
        Status::from(status),
        "a Node-API call failed",
    ))
}

/// `new Error(message)` with `properties` defined on it as own, enumerable data properties
/// (as `code` and `name` are on Node's own errors).
///
/// Gap: napi-rs's `Env::create_error` passes a `code`, which Node *assigns*, running any
/// setter a caller put on `Error.prototype.code`; here the error is made without one, and
/// the properties are defined (napi-rs's safe `define_properties`), which runs no setter.
pub fn error<'env>(
    env: &'env Env,
    message: &str,
    properties: &[(&str, &str)],
) -> napi::Result<Object<'env>> {
    let message = env.create_string(message)?;
    let mut raw = ptr::null_mut();
    let no_code = ptr::null_mut();
    // SAFETY: `message` is a live string handle; a null `code` means "no code property".
    let status = unsafe { sys::napi_create_error(env.raw(), no_code, message.raw(), &mut raw) };
    check(env, status)?;
    let mut error = Object::from_raw(env.raw(), raw);
    let attributes = PropertyAttributes::Writable
        | PropertyAttributes::Enumerable
        | PropertyAttributes::Configurable;
    let mut defined = Vec::with_capacity(properties.len());
    for (name, value) in properties {
        let value = env.create_string(value)?;
        let property = Property::new()
            .with_utf8_name(name)?
            .with_value(&value)
            .with_property_attributes(attributes);
        defined.push(property);
    }
    cleared(env, error.define_properties(&defined))?;
    Ok(error)
}

/// A promise's resolver, settled on the JS thread, once.
///
/// Gap: napi-rs's deferred (`JsDeferred`) settles through a thread-safe function, on a
/// later turn of the event loop; a read answered on the JS thread, an invalid argument or
/// an abort must settle now.
pub struct Deferred(sys::napi_deferred);

/// A new promise and its resolver.
pub fn promise(env: &Env) -> napi::Result<(Deferred, Object<'_>)> {
    let (mut deferred, mut promise) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: both are out-pointers.
    let status = unsafe { sys::napi_create_promise(env.raw(), &mut deferred, &mut promise) };
    check(env, status).map(|()| (Deferred(deferred), Object::from_raw(env.raw(), promise)))
}

impl Deferred {
    /// Resolves (`Ok`) or rejects (`Err`) the promise. Node frees the resolver whatever
    /// happens, so this consumes it; an exception thrown meanwhile (by a `then` getter on
    /// the value, which V8 turns into the promise's rejection) is cleared.
    pub fn settle(self, env: &Env, outcome: Result<Unknown, Unknown>) {
        let status = match outcome {
            // SAFETY: `self.0` came from `napi_create_promise` on this env and is used once,
            // here, by value; `value` is a live handle.
            Ok(value) => unsafe { sys::napi_resolve_deferred(env.raw(), self.0, value.raw()) },
            // SAFETY: as above, with the live handle `error`.
            Err(error) => unsafe { sys::napi_reject_deferred(env.raw(), self.0, error.raw()) },
        };
        // Nothing is left to tell: the promise is settled or its env is going away.
        let _ = check(env, status);
    }
}

/// The env's instance data, created by `make` on first use and dropped when the env is
/// torn down. Node keeps the slot per module instance and env.
///
/// Gap: napi-rs's `Env::get_instance_data` hands out `&'static mut T`, and a call that
/// re-enters the addon (a `then` getter run while a promise is settled) would hold two of
/// them at once; the binding needs a shared reference.
///
/// # Safety
/// Every call on a given env must name the same `T`.
pub unsafe fn instance_data<T: 'static>(
    env: &Env,
    make: impl FnOnce() -> T,
) -> napi::Result<&'static T> {
    let mut data = ptr::null_mut();
    // SAFETY: `data` is an out-pointer.
    check(env, unsafe {
        sys::napi_get_instance_data(env.raw(), &mut data)
    })?;
    if data.is_null() {
        data = Box::into_raw(Box::new(make())).cast();
        let finalize = Some(drop_instance_data::<T> as _);
        // SAFETY: `data` is a leaked `Box<T>`, freed once by `drop_instance_data::<T>`
        // when Node tears the env down.
        let status =
            unsafe { sys::napi_set_instance_data(env.raw(), data, finalize, ptr::null_mut()) };
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
