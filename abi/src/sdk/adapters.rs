//! The SDK's implementations of the boundary's handler traits: each parses its input, calls
//! the author's closure inside the panic guard, and serialises the result.

use std::{
    any::{Any, TypeId},
    cell::RefCell,
    marker::PhantomData,
    rc::Rc,
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

/// Payloads up to this size are parsed once per thread for all of a plugin's handlers of an
/// emit; larger ones are parsed by each handler, so that a plugin does not keep a large
/// parsed event alive between emits.
const PARSE_CACHE_LIMIT: usize = 256 * 1024;

/// The last payload parsed on a thread.
struct Parsed {
    serial: u64,
    kind: TypeId,
    event: Rc<dyn Any>,
}

thread_local! {
    static PARSED: RefCell<Option<Parsed>> = const { RefCell::new(None) };
}

/// The event in `json`, parsed once for every handler that gets the same `serial`.
fn parse_event<E: Event>(json: &str, serial: u64) -> Result<Rc<E>, CallError> {
    let cacheable = serial != 0 && json.len() <= PARSE_CACHE_LIMIT;
    if cacheable {
        let hit = PARSED.with(|slot| {
            slot.borrow()
                .as_ref()
                .filter(|p| p.serial == serial && p.kind == TypeId::of::<E>())
                .map(|p| p.event.clone())
        });
        if let Some(event) = hit.and_then(|e| e.downcast::<E>().ok()) {
            return Ok(event);
        }
    }
    let event: Rc<E> = Rc::new(
        serde_json::from_str(json)
            .map_err(|e| CallError::error(format!("cannot read the {} event: {e}", E::KIND)))?,
    );
    if cacheable {
        let parsed = Parsed {
            serial,
            kind: TypeId::of::<E>(),
            event: event.clone(),
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
    _event: PhantomData<fn(&E)>,
}

impl<E, F> EventAdapter<E, F> {
    pub(crate) fn new(handler: F) -> Self {
        Self {
            handler: Guarded(Some(handler)),
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
            let event = parse_event::<E>(event.as_str(), serial)?;
            let ctx = HookContext::new(ctx);
            match handler(&event, &ctx).map_err(author_error)? {
                None => Ok(RNone),
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
