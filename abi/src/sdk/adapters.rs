//! The SDK's implementations of the boundary's handler traits: each parses its input, calls
//! the author's closure inside the panic guard, and serialises the result.

use std::{
    any::{Any, TypeId},
    cell::RefCell,
    marker::PhantomData,
    rc::Rc,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc,
    },
};

use abi_stable::std_types::{RNone, ROption, RResult, RSome, RStr, RString};

use super::{
    guard::{drop_guarded, guarded},
    CommandContext, Error, HandlerResult, HookContext, RenderOptions,
};
use crate::{
    events::{CustomMessage, Event},
    ffi::{CallError, CommandHandler, EventHandler, HostContextRef, MessageRenderer},
};

/// The payload parsed last on a thread, kept for the next handlers of the same emit in the
/// same hook (the host gives each payload a serial unique in its process).
struct Parsed {
    serial: u64,
    kind: TypeId,
    event: Rc<dyn Any>,
    /// The hook's handlers of this event that have used it, and how many it has.
    uses: usize,
    group: *const AtomicUsize,
}

thread_local! {
    static PARSED: RefCell<Option<Parsed>> = const { RefCell::new(None) };
}

/// The event in `json`, parsed once for all of a hook's handlers that get the same `serial`.
/// The parsed event is dropped after the hook's last handler of the event used it, so a
/// large payload is not kept alive between emits.
fn parse_event<E: Event>(
    json: &str,
    serial: u64,
    group: &Arc<AtomicUsize>,
) -> Result<Rc<E>, CallError> {
    let handlers = group.load(Ordering::Relaxed);
    let group_ptr = Arc::as_ptr(group);
    let cached = (serial != 0)
        .then(|| {
            PARSED.with(|slot| {
                let mut slot = slot.borrow_mut();
                let entry = slot
                    .as_mut()
                    .filter(|p| p.serial == serial && p.kind == TypeId::of::<E>())?;
                if entry.group != group_ptr {
                    entry.group = group_ptr;
                    entry.uses = 0;
                }
                entry.uses += 1;
                let event = entry.event.clone();
                if entry.uses >= handlers {
                    *slot = None;
                }
                Some(event)
            })
        })
        .flatten()
        .and_then(|event| event.downcast::<E>().ok());
    if let Some(event) = cached {
        return Ok(event);
    }
    let event: Rc<E> = Rc::new(
        serde_json::from_str(json)
            .map_err(|e| CallError::error(format!("cannot read the {} event: {e}", E::KIND)))?,
    );
    if serial != 0 && handlers > 1 {
        let parsed = Parsed {
            serial,
            kind: TypeId::of::<E>(),
            event: event.clone(),
            uses: 1,
            group: group_ptr,
        };
        PARSED.with(|slot| *slot.borrow_mut() = Some(parsed));
    }
    Ok(event)
}

fn author_error(error: Error) -> CallError {
    CallError::error(error.to_string())
}

/// Holds an author's closure and drops it inside the panic guard.
struct Guarded<F>(Option<F>);

impl<F> Guarded<F> {
    fn get(&self) -> Result<&F, CallError> {
        self.0
            .as_ref()
            .ok_or_else(|| CallError::error("handler used after it was dropped"))
    }
}

impl<F> Drop for Guarded<F> {
    fn drop(&mut self) {
        drop_guarded(self.0.take());
    }
}

pub(crate) struct EventAdapter<E, F> {
    handler: Guarded<F>,
    /// How many handlers of this event the hook has (this one included).
    group: Arc<AtomicUsize>,
    /// Set when the host is of an interface whose result for this event has another shape
    /// (a 1.0 host takes no `session_start` result): a result is then not sent, and the
    /// first one is reported as not supported.
    unknown_to_host: Option<UnknownResult>,
    _event: PhantomData<fn(&E)>,
}

/// A result the host cannot read: what to say, and whether it was said.
pub(crate) struct UnknownResult {
    pub(crate) message: String,
    pub(crate) reported: AtomicBool,
}

impl<E, F> EventAdapter<E, F> {
    pub(crate) fn new(
        handler: F,
        group: Arc<AtomicUsize>,
        unknown_to_host: Option<UnknownResult>,
    ) -> Self {
        Self {
            handler: Guarded(Some(handler)),
            group,
            unknown_to_host,
            _event: PhantomData,
        }
    }
}

impl<E, F> EventHandler for EventAdapter<E, F>
where
    E: Event,
    F: Fn(&E, &HookContext<'_>) -> HandlerResult<Option<E::Output>> + Send + Sync + 'static,
{
    fn handle(
        &self,
        event: RStr<'_>,
        serial: u64,
        ctx: HostContextRef<'_>,
    ) -> RResult<ROption<RString>, CallError> {
        guarded(|| {
            let handler = self.handler.get()?;
            let event = parse_event::<E>(event.as_str(), serial, &self.group)?;
            let ctx = HookContext::new(ctx);
            match handler(&event, &ctx).map_err(author_error)? {
                None => Ok(RNone),
                Some(_) if self.unknown_to_host.is_some() => {
                    let unknown = self.unknown_to_host.as_ref().expect("checked");
                    // Reported once, as this handler's error (what a 1.0 host shows the
                    // user); later results are dropped quietly.
                    if unknown.reported.swap(true, Ordering::Relaxed) {
                        Ok(RNone)
                    } else {
                        Err(CallError::error(unknown.message.clone()))
                    }
                }
                Some(output) => serde_json::to_string(&output)
                    .map(|json| RSome(RString::from(json)))
                    .map_err(|e| CallError::error(format!("cannot write the result: {e}"))),
            }
        })
        .into()
    }
}

pub(crate) struct CommandAdapter<F> {
    handler: Guarded<F>,
}

impl<F> CommandAdapter<F> {
    pub(crate) fn new(handler: F) -> Self {
        Self {
            handler: Guarded(Some(handler)),
        }
    }
}

impl<F> CommandHandler for CommandAdapter<F>
where
    F: Fn(&str, &CommandContext<'_>) -> HandlerResult<()> + Send + Sync + 'static,
{
    fn run(&self, args: RStr<'_>, ctx: HostContextRef<'_>) -> RResult<(), CallError> {
        guarded(|| {
            let handler = self.handler.get()?;
            handler(args.as_str(), &CommandContext::new(ctx)).map_err(author_error)
        })
        .into()
    }
}

pub(crate) struct RendererAdapter<F> {
    renderer: Guarded<F>,
}

impl<F> RendererAdapter<F> {
    pub(crate) fn new(renderer: F) -> Self {
        Self {
            renderer: Guarded(Some(renderer)),
        }
    }
}

impl<F> MessageRenderer for RendererAdapter<F>
where
    F: Fn(&CustomMessage, &RenderOptions, &HookContext<'_>) -> HandlerResult<Option<String>>
        + Send
        + Sync
        + 'static,
{
    fn render(
        &self,
        message: RStr<'_>,
        options: RStr<'_>,
        ctx: HostContextRef<'_>,
    ) -> RResult<ROption<RString>, CallError> {
        guarded(|| {
            let renderer = self.renderer.get()?;
            let message: CustomMessage = serde_json::from_str(message.as_str())
                .map_err(|e| CallError::error(format!("cannot read the message: {e}")))?;
            let options: RenderOptions = serde_json::from_str(options.as_str()).unwrap_or_default();
            let rendered =
                renderer(&message, &options, &HookContext::new(ctx)).map_err(author_error)?;
            Ok(rendered.map(RString::from).into())
        })
        .into()
    }
}
