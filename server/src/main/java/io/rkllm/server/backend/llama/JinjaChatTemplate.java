package io.rkllm.server.backend.llama;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import io.rkllm.server.engine.ChatPrompt;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jinjava.javax.el.CompositeELResolver;

/**
 * A GGUF model's own chat template ({@code tokenizer.chat_template}, Hugging Face's Jinja2 dialect), rendered by
 * Jinjava with what transformers' environment has and Jinjava lacks: {@code {{-}} trimming and Python's operator
 * precedence (Jinjava's legacy overrides), {@code trim_blocks}/{@code lstrip_blocks}, Python's string methods
 * ({@link PyStrings}), {@code raise_exception}, {@code strftime_now}, {@code tojson} as Python writes JSON
 * ({@link PyJson}), and two rewrites of the source for what Jinjava cannot parse: {@code x[::-1]} (a reversed
 * copy) and expressions as {@code namespace(...)} arguments. The template is tried once when the model loads; one
 * that does not render falls back to the family template the pipeline chose.
 */
final class JinjaChatTemplate {
    private static final Pattern REVERSED = Pattern.compile("([A-Za-z_][\\w.]*)\\[\\s*:\\s*:\\s*-1\\s*\\]");
    private static final Pattern NAMESPACE = Pattern.compile("namespace\\(");

    private final Jinjava jinjava;
    private final String source;
    private final String bos;
    private final String eos;
    private final boolean stripBos;

    /**
     * @param bos the text of the model's BOS token, given to the template as {@code bos_token}
     * @param addsBos the tokenizer adds the BOS itself: a BOS the template writes first is taken out again
     */
    JinjaChatTemplate(String source, String bos, String eos, boolean addsBos) {
        this.source = rewrite(source);
        this.bos = bos;
        this.eos = eos;
        this.stripBos = addsBos && !bos.isEmpty();
        LegacyOverrides python = LegacyOverrides.newBuilder().withUseTrimmingForNotesAndExpressions(true)
                .withUseNaturalOperatorPrecedence(true).withParseWhitespaceControlStrictly(true)
                .withKeepNullableLoopValues(true).withHandleBackslashInQuotesOnly(true).withEvaluateMapKeys(true)
                .build();
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PyStrings());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_WRITE);
        this.jinjava = new Jinjava(JinjavaConfig.newBuilder().withTrimBlocks(true).withLstripBlocks(true)
                .withLegacyOverrides(python).withElResolver(resolver).withFailOnUnknownTokens(false)
                .withMaxOutputSize(16L << 20).build());
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
                JinjaChatTemplate.class, "raiseException", String.class));
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "strftime_now",
                JinjaChatTemplate.class, "strftimeNow", String.class));
        jinjava.getGlobalContext().registerFilter(new PyToJson());
    }

    /** The template, if it renders a short conversation; empty (with the reason) when it does not. */
    static Optional<JinjaChatTemplate> tryOf(String source, String bos, String eos, boolean addsBos,
                                             List<String> problems) {
        try {
            JinjaChatTemplate template = new JinjaChatTemplate(source, bos, eos, addsBos);
            template.render(List.of(message("system", "S"), message("user", "U")), Optional.empty(), false);
            return Optional.of(template);
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
            return Optional.empty();
        }
    }

    /** A chat turn: the system prompt, the conversation, the tools, the thinking switch, then the answer's start. */
    String render(ChatPrompt prompt) {
        List<Map<String, Object>> messages = new ArrayList<>();
        if (!prompt.systemPrompt().isEmpty()) {
            messages.add(message("system", prompt.systemPrompt()));
        }
        for (ChatPrompt.Message m : prompt.messages()) {
            Map<String, Object> map = message(m.role(), m.content());
            if (!m.toolCalls().isEmpty()) {
                List<Map<String, Object>> calls = new ArrayList<>();
                for (ChatPrompt.ToolCall call : m.toolCalls()) {
                    Map<String, Object> function = new LinkedHashMap<>();
                    function.put("name", call.name());
                    function.put("arguments", new PyJson.Raw(call.argumentsJson()));
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("id", call.id());
                    c.put("type", "function");
                    c.put("function", function);
                    calls.add(c);
                }
                map.put("tool_calls", calls);
            }
            m.toolCallId().ifPresent(id -> map.put("tool_call_id", id));
            messages.add(map);
        }
        return render(messages, prompt.tools(), prompt.thinking());
    }

    /** One message alone (a background task's text as a user turn). */
    String render(ChatPrompt.Message message, boolean thinking) {
        return render(List.of(message(message.role(), message.content())), Optional.empty(), thinking);
    }

    private String render(List<Map<String, Object>> messages, Optional<String> toolsJson, boolean thinking) {
        Map<String, Object> context = new LinkedHashMap<>();
        context.put("messages", messages);
        context.put("add_generation_prompt", true);
        context.put("bos_token", bos);
        context.put("eos_token", eos);
        context.put("enable_thinking", thinking);
        String template = source;
        if (toolsJson.isPresent()) {
            // the tools reach the template as objects through Jinjava's own JSON reader (no JSON library here)
            context.put("__tools_json", toolsJson.get());
            template = "{%- set tools = __tools_json | fromjson -%}" + source;
        }
        RenderResult result = jinjava.renderForResult(template, context);
        List<TemplateError> fatal = result.getErrors().stream()
                .filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL).toList();
        if (!fatal.isEmpty()) {
            throw new IllegalArgumentException("the model's chat template failed: " + fatal.stream()
                    .map(e -> e.getMessage() + (e.getLineno() > 0 ? " (line " + e.getLineno() + ")" : ""))
                    .distinct().reduce((a, b) -> a + "; " + b).orElse(""));
        }
        String text = result.getOutput();
        return stripBos && text.startsWith(bos) ? text.substring(bos.length()) : text;
    }

    private static Map<String, Object> message(String role, String content) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("role", role);
        map.put("content", content);
        return map;
    }

    /** The source with what Jinjava cannot parse written in what it can. */
    static String rewrite(String source) {
        String reversed = REVERSED.matcher(source).replaceAll("($1|reverse)");
        return parenthesiseNamespaceArguments(reversed);
    }

    /**
     * {@code namespace(a=x|length - 1)}: Jinjava binds the filter and the operator to the named parameter, not to
     * its value; each value is put in parentheses.
     */
    private static String parenthesiseNamespaceArguments(String source) {
        StringBuilder out = new StringBuilder();
        Matcher m = NAMESPACE.matcher(source);
        int from = 0;
        while (m.find(from)) {
            out.append(source, from, m.end());
            int depth = 1;
            int i = m.end();
            int argStart = i;
            List<String> args = new ArrayList<>();
            char quote = 0;
            for (; i < source.length() && depth > 0; i++) {
                char c = source.charAt(i);
                if (quote != 0) {
                    if (c == quote && source.charAt(i - 1) != '\\') {
                        quote = 0;
                    }
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '(' || c == '[' || c == '{') {
                    depth++;
                } else if (c == ')' || c == ']' || c == '}') {
                    depth--;
                    if (depth == 0) {
                        args.add(source.substring(argStart, i));
                    }
                } else if (c == ',' && depth == 1) {
                    args.add(source.substring(argStart, i));
                    argStart = i + 1;
                }
            }
            if (depth != 0) {
                out.append(source, m.end(), source.length());
                return out.toString();
            }
            List<String> written = new ArrayList<>();
            for (String arg : args) {
                int eq = arg.indexOf('=');
                boolean named = eq > 0 && arg.substring(0, eq).strip().matches("[A-Za-z_]\\w*")
                        && (eq + 1 >= arg.length() || arg.charAt(eq + 1) != '=');
                written.add(named ? arg.substring(0, eq + 1) + "(" + arg.substring(eq + 1).strip() + ")" : arg);
            }
            out.append(String.join(",", written)).append(')');
            from = i;
        }
        out.append(source.substring(from));
        return out.toString();
    }

    /** {@code raise_exception(message)}: the template refuses the conversation. */
    public static String raiseException(String message) {
        throw new IllegalArgumentException("the model's chat template refused the conversation: " + message);
    }

    /** {@code strftime_now(format)}: today, in the few formats chat templates use. */
    public static String strftimeNow(String format) {
        LocalDate today = LocalDate.now();
        String pattern = format.replace("%Y", "yyyy").replace("%m", "MM").replace("%d", "dd").replace("%B", "MMMM")
                .replace("%b", "MMM").replace("%A", "EEEE").replace("%a", "EEE");
        return today.format(DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH));
    }

    /** Hugging Face's {@code tojson}: Python's JSON spacing; a tool call's arguments as the model wrote them. */
    private static final class PyToJson implements Filter {
        @Override
        public String getName() {
            return "tojson";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return PyJson.write(var);
        }
    }
}
