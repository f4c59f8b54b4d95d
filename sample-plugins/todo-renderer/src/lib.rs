//! `/todo <text>` adds a todo message; its renderer shows the list as a checklist.

use agent_hooks_abi::prelude::*;

fn render(details: &Value) -> Option<String> {
    let items = details.get("items")?.as_array()?;
    let lines: Vec<String> = items
        .iter()
        .map(|item| {
            let mark = if item["done"].as_bool().unwrap_or(false) {
                "☑"
            } else {
                "☐"
            };
            format!("{mark} {}", item["text"].as_str().unwrap_or_default())
        })
        .collect();
    Some(lines.join("\n"))
}

fn plugin(api: &mut HookApi) -> HandlerResult<()> {
    api.register_message_renderer("todo", |message, options, _ctx| {
        let Some(list) = render(&message.details) else {
            return Ok(None);
        };
        Ok(Some(if options.expanded {
            format!("Todo\n{list}")
        } else {
            list
        }))
    });
    let host = api.host();
    api.register_command("todo", "Add a todo to the session", move |args, _ctx| {
        let text = args.trim();
        if text.is_empty() {
            return Err("usage: /todo <text>".into());
        }
        let message = CustomMessage::new("todo", format!("Todo: {text}"))
            .details(json!({"items": [{"text": text, "done": false}]}));
        host.send_message(&message, &SendMessageOptions::default())
    });
    Ok(())
}

agent_hooks_abi::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use agent_hooks_abi::prelude::*;
    use agent_hooks_abi::testing::{HandlerError, TestHost};

    #[test]
    fn todo_sends_a_todo_message() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        assert_eq!(plugin.run_command("todo", "  buy milk "), Ok(()));
        let message = CustomMessage::new("todo", "Todo: buy milk")
            .details(json!({"items": [{"text": "buy milk", "done": false}]}));
        assert_eq!(
            plugin.sent(),
            vec![(message, SendMessageOptions::default())]
        );
    }

    #[test]
    fn todo_without_text_says_how_to_use_it() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        assert_eq!(
            plugin.run_command("todo", " "),
            Err(HandlerError::Failed("usage: /todo <text>".into()))
        );
        assert_eq!(plugin.sent(), vec![]);
    }

    #[test]
    fn the_list_renders_as_a_checklist_with_a_title_when_expanded() {
        let plugin = TestHost::new().load(super::plugin).unwrap();
        let message = CustomMessage::new("todo", "Todo").details(json!({"items": [
            {"text": "write", "done": true},
            {"text": "test", "done": false},
        ]}));
        let collapsed = RenderOptions::default();
        assert_eq!(
            plugin.render(&message, &collapsed),
            Ok(Some("☑ write\n☐ test".into()))
        );
        let expanded = RenderOptions::default().expanded(true);
        assert_eq!(
            plugin.render(&message, &expanded),
            Ok(Some("Todo\n☑ write\n☐ test".into()))
        );
        // Without items, the host's default rendering.
        let empty = CustomMessage::new("todo", "Todo");
        assert_eq!(plugin.render(&empty, &expanded), Ok(None));
    }
}
