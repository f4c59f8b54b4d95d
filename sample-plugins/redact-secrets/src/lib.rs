//! Redacts `API_KEY=<value>` in what the `read` tool returns.

use agent_hooks_abi::prelude::*;

const MARKER: &str = "API_KEY=";
const REDACTED: &str = "API_KEY=[REDACTED]";

/// Replaces every `API_KEY=` value (up to the next white space) with `[REDACTED]`.
fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARKER) {
        out.push_str(&rest[..at]);
        out.push_str(REDACTED);
        let value = &rest[at + MARKER.len()..];
        let end = value.find(char::is_whitespace).unwrap_or(value.len());
        rest = &value[end..];
    }
    out.push_str(rest);
    out
}

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.on(|event: &ToolResultEvent, _ctx| {
        if event.tool_name != "read" || event.is_error {
            return Ok(None);
        }
        if !event
            .content
            .iter()
            .any(|block| block.as_text().is_some_and(|t| t.contains(MARKER)))
        {
            return Ok(None);
        }
        let content = event
            .content
            .iter()
            .map(|block| match block.as_text() {
                Some(text) => ContentBlock::text(redact(text)),
                None => block.clone(),
            })
            .collect();
        Ok(Some(ToolResultPatch::default().content(content)))
    });
    Ok(())
}

agent_hooks_abi::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use agent_hooks_abi::prelude::*;
    use agent_hooks_abi::testing::TestHost;

    use super::redact;

    fn read(text: &str) -> ToolResultEvent {
        ToolResultEvent::new("read", "call-1", json!({"path": ".env"}))
            .content(vec![ContentBlock::text(text)])
    }

    #[test]
    fn a_read_with_a_key_comes_back_redacted() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        assert_eq!(
            plugin.emit(&read("API_KEY=sk-1 PORT=80")),
            Ok(Some(ToolResultPatch::default().content(vec![
                ContentBlock::text("API_KEY=[REDACTED] PORT=80")
            ])))
        );
    }

    #[test]
    fn other_tools_failed_reads_and_clean_reads_are_left_alone() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        assert_eq!(plugin.emit(&read("PORT=80")), Ok(None));
        assert_eq!(plugin.emit(&read("API_KEY=sk-1").is_error(true)), Ok(None));
        let exec = ToolResultEvent::new("exec", "call-2", json!({}))
            .content(vec![ContentBlock::text("API_KEY=sk-1")]);
        assert_eq!(plugin.emit(&exec), Ok(None));
    }

    #[test]
    fn every_value_is_redacted_and_the_rest_kept() {
        assert_eq!(
            redact("a API_KEY=sk-123 b\nAPI_KEY=x"),
            "a API_KEY=[REDACTED] b\nAPI_KEY=[REDACTED]"
        );
        assert_eq!(redact("nothing here"), "nothing here");
    }
}
