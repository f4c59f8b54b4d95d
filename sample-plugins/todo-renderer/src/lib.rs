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
