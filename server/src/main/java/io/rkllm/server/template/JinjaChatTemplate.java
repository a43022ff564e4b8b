package io.rkllm.server.template;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.filter.FromJsonFilter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import io.rkllm.server.text.BracketScanner;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jinjava.javax.el.CompositeELResolver;

/**
 * A model's own chat template (a GGUF's {@code tokenizer.chat_template}, or the {@code chat_template.jinja} beside a
 * model file: Hugging Face's Jinja2 dialect), rendered by
 * Jinjava with what transformers' environment has and Jinjava lacks: {@code {{-}} trimming and Python's operator
 * precedence (Jinjava's legacy overrides), {@code trim_blocks}/{@code lstrip_blocks}, Python's string methods
 * ({@link PyStrings}), {@code raise_exception}, {@code strftime_now}, {@code tojson} as Python writes JSON
 * ({@link PyJson}), and two rewrites of the source for what Jinjava cannot parse: {@code x[::-1]} (a reversed
 * copy), expressions as {@code namespace(...)} arguments, {@code not} before a test or comparison, filtered
 * loops ({@link FilteredLoops}) and comments ({@link Comments}). The template is tried once when the model loads; one
 * that does not render falls back to the family template the pipeline chose.
 */
public final class JinjaChatTemplate {
    private static final Pattern REVERSED = Pattern.compile("([A-Za-z_][\\w.]*)\\[\\s*:\\s*:\\s*-1\\s*\\]");
    private static final Pattern NAMESPACE = Pattern.compile("namespace\\(");
    /** A variable with attributes, subscripts and argument-less filters: {@code message['content'] | trim}. */
    private static final String REF = "[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*|\\[[^\\[\\]]*\\])*(?:\\s*\\|\\s*[A-Za-z_]\\w*(?![\\w(]))*";
    private static final String OPERAND = "(?:" + REF + "|-?\\d+(?:\\.\\d+)?|'[^']*'|\"[^\"]*\")";
    /** {@code not} before a test or a comparison of two simple operands (see {@link #rewrite}). */
    private static final Pattern NOT_TEST = Pattern.compile("\\bnot\\s+((?!(?:in|is|not)\\b)" + REF
            + "\\s*(?:is\\s+(?:not\\s+)?[A-Za-z_]\\w*(?![\\w(])|(?:==|!=|<=|>=|<|>)\\s*" + OPERAND
            + "(?![\\w.\\[(|]|\\s*\\|)))");
    /** The context variable strftime_now reads the render's time from. */
    private static final String NOW = "__rkllm_now";

    private final Jinjava jinjava;
    private final String source;
    private final String bos;
    private final String eos;
    private final boolean stripBos;
    private final Clock clock;

    /**
     * @param bos the text of the model's BOS token, given to the template as {@code bos_token}
     * @param addsBos the tokenizer adds the BOS itself: a BOS the template writes first is taken out again
     */
    JinjaChatTemplate(String source, String bos, String eos, boolean addsBos, Clock clock) {
        this.source = rewrite(source);
        this.clock = clock;
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
        jinjava.getGlobalContext().registerFilter(new Items());
        jinjava.getGlobalContext().registerFilter(new PyString());
    }

    /** The template, if it renders a short conversation; empty (with the reason) when it does not. */
    public static Optional<JinjaChatTemplate> tryOf(String source, String bos, String eos, boolean addsBos,
                                                    List<String> problems) {
        return tryOf(source, bos, eos, addsBos, problems, Clock.systemDefaultZone());
    }

    /** @param clock today's date for {@code strftime_now} (a fixed one in tests, as the fixtures' script has) */
    public static Optional<JinjaChatTemplate> tryOf(String source, String bos, String eos, boolean addsBos,
                                                    List<String> problems, Clock clock) {
        try {
            JinjaChatTemplate template = new JinjaChatTemplate(source, bos, eos, addsBos, clock);
            template.renderMaps(List.of(message("system", "S"), message("user", "U")), Optional.empty(),
                    TemplateSwitches.thinking(false));
            return Optional.of(template);
        } catch (RuntimeException e) {
            problems.add(e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * A conversation ready for the model's answer: the messages (a system prompt first, when there is one), the tools
     * offered (an OpenAI {@code tools} array as JSON), and the switches.
     */
    public String render(List<TemplateMessage> conversation, Optional<String> toolsJson, TemplateSwitches switches) {
        List<Map<String, Object>> messages = new ArrayList<>();
        for (TemplateMessage m : conversation) {
            Map<String, Object> map = message(m.role(), m.content());
            if (!m.toolCalls().isEmpty()) {
                List<Map<String, Object>> calls = new ArrayList<>();
                for (TemplateMessage.Call call : m.toolCalls()) {
                    Map<String, Object> function = new LinkedHashMap<>();
                    function.put("name", call.name());
                    function.put("arguments", ToolArguments.of(call.argumentsJson(), this::readJson));
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("id", call.id());
                    c.put("type", "function");
                    c.put("function", function);
                    calls.add(c);
                }
                map.put("tool_calls", calls);
            }
            m.toolCallId().ifPresent(id -> map.put("tool_call_id", id));
            m.reasoning().ifPresent(r -> {
                map.put("reasoning_content", r); // transformers' field
                // gpt-oss's own name for it; its template refuses a call with both its text and its thinking (the
                // text is then its analysis), so such a message keeps its text, as it was written
                if (m.toolCalls().isEmpty() || m.content().isBlank()) {
                    map.put("thinking", r);
                }
            });
            messages.add(map);
        }
        return renderMaps(messages, toolsJson, switches);
    }

    /** One message alone (a background task's text as a user turn). */
    public String render(TemplateMessage message, boolean thinking) {
        return renderMaps(List.of(message(message.role(), message.content())), Optional.empty(),
                TemplateSwitches.thinking(thinking));
    }

    private String renderMaps(List<Map<String, Object>> messages, Optional<String> toolsJson,
                              TemplateSwitches switches) {
        Map<String, Object> context = new LinkedHashMap<>();
        context.put("messages", messages);
        context.put("add_generation_prompt", true);
        context.put("bos_token", bos);
        context.put("eos_token", eos);
        context.put("enable_thinking", switches.thinking());
        switches.effort().ifPresent(e -> context.put("reasoning_effort", e));
        context.put(NOW, LocalDateTime.now(clock));
        // transformers always passes tools and documents, None when there are none: `tools is not none` is false
        context.put("tools", null);
        context.put("documents", null);
        context.putAll(switches.extra());
        String template = source;
        if (toolsJson.isPresent()) {
            // the tools reach the template as objects through Jinjava's own JSON reader (no JSON library here)
            context.put("__tools_json", toolsJson.get());
            template = "{%- set tools = __tools_json | fromjson -%}" + source;
        }
        RenderResult result = jinjava.renderForResult(template, context);
        List<TemplateError> fatal = result.getErrors().stream()
                .filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL).toList();
        for (TemplateError error : fatal) {
            // Jinjava reports a raise_exception as a failed call; its message is the template's own reason
            for (Throwable t = error.getException(); t != null; t = t.getCause()) {
                if (t instanceof RefusedConversation refusal) {
                    throw refusal;
                }
            }
        }
        if (!fatal.isEmpty()) {
            throw new IllegalArgumentException("the model's chat template failed: " + fatal.stream()
                    .map(e -> e.getMessage() + (e.getLineno() > 0 ? " (line " + e.getLineno() + ")" : ""))
                    .distinct().reduce((a, b) -> a + "; " + b).orElse(""));
        }
        String text = result.getOutput();
        return stripBos && text.startsWith(bos) ? text.substring(bos.length()) : text;
    }

    /** JSON text as Jinjava's {@code fromjson} reads it (key order kept), which is how the tools reach the template. */
    private Object readJson(String json) {
        return new FromJsonFilter().filter(json, jinjava.newInterpreter());
    }

    private static Map<String, Object> message(String role, String content) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("role", role);
        map.put("content", content);
        return map;
    }

    /** The source with what Jinjava cannot parse written in what it can. */
    static String rewrite(String source) {
        String reversed = REVERSED.matcher(FilteredLoops.rewrite(Comments.rewrite(source))).replaceAll("($1|reverse)");
        // Jinja's `not` binds looser than tests and comparisons, Jinjava's tighter: `not x is defined` is read as
        // `(not x) is defined`, always true (Mistral's `if not tools is defined` then set tools to none, DeepSeek's
        // add_generation_prompt to false), and `not budget == -1` compares a boolean with a number and fails
        // (Seed-OSS). The simple forms, which are what templates write, get Jinja's parentheses.
        reversed = NOT_TEST.matcher(reversed).replaceAll(m -> Matcher.quoteReplacement("not (" + m.group(1) + ")"));
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
            // from the call's own parenthesis, which the pattern ends with
            BracketScanner scanner = new BracketScanner(source, m.end() - 1, BracketScanner.Syntax.JINJA);
            scanner.next();
            int argStart = m.end();
            List<String> args = new ArrayList<>();
            while (scanner.depth() > 0 && scanner.next()) {
                int i = scanner.index();
                if (scanner.closes() && scanner.depth() == 0) {
                    args.add(source.substring(argStart, i));
                } else if (scanner.inCode() && scanner.current() == ',' && scanner.depth() == 1) {
                    args.add(source.substring(argStart, i));
                    argStart = i + 1;
                }
            }
            if (scanner.depth() != 0) {
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
            from = scanner.index() + 1;
        }
        out.append(source.substring(from));
        return out.toString();
    }

    /** {@code raise_exception(message)}: the template refuses the conversation. */
    public static String raiseException(String message) {
        throw new RefusedConversation(message);
    }

    /** The template's {@code raise_exception}: the conversation is one the model's format cannot write. */
    public static final class RefusedConversation extends IllegalArgumentException {
        RefusedConversation(String message) {
            super("the model's chat template refused the conversation: " + message);
        }
    }

    /**
     * {@code strftime_now(format)}: the render's time (put in the context, as a function registered with Jinjava
     * is static) in Python's strftime format, the C locale's names.
     */
    public static String strftimeNow(String format) {
        Object now = JinjavaInterpreter.getCurrent() == null ? null
                : JinjavaInterpreter.getCurrent().getContext().get(NOW);
        return Strftime.format(format, now instanceof LocalDateTime t ? t : LocalDateTime.now());
    }

    /**
     * Hugging Face's {@code tojson}: json.dumps with ensure_ascii off, and its {@code indent}, {@code separators},
     * {@code sort_keys} and {@code ensure_ascii} arguments (Granite writes its tools with {@code tojson(indent=4)}).
     */
    private static final class PyToJson implements Filter {
        @Override
        public String getName() {
            return "tojson";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return PyJson.write(var);
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            return PyJson.write(var, options(args, kwargs));
        }

        /** Python's order: tojson(ensure_ascii, indent, separators, sort_keys), by position or by name. */
        private static PyJson.Options options(Object[] args, Map<String, Object> kwargs) {
            Object ensureAscii = kwargs.getOrDefault("ensure_ascii", args.length > 0 ? args[0] : false);
            Object indent = kwargs.getOrDefault("indent", args.length > 1 ? args[1] : null);
            Object separators = kwargs.getOrDefault("separators", args.length > 2 ? args[2] : null);
            Object sortKeys = kwargs.getOrDefault("sort_keys", args.length > 3 ? args[3] : false);
            String indentText = switch (indent) {
                case null -> null;
                case Number n -> " ".repeat(Math.max(0, n.intValue()));
                default -> indent.toString();
            };
            // json.dumps: with an indent, items end a line, so their separator loses its space
            String item = indentText == null ? ", " : ",";
            String key = ": ";
            if (separators instanceof List<?> pair && pair.size() == 2) {
                item = String.valueOf(pair.get(0));
                key = String.valueOf(pair.get(1));
            }
            return new PyJson.Options(indentText, item, key, Boolean.TRUE.equals(sortKeys),
                    Boolean.TRUE.equals(ensureAscii));
        }
    }

    /** Jinja's {@code items} filter (Seed-OSS's {@code arguments | items}), which Jinjava lacks: [key, value] pairs. */
    private static final class Items implements Filter {
        @Override
        public String getName() {
            return "items";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            List<List<Object>> pairs = new ArrayList<>();
            if (var instanceof Map<?, ?> map) {
                map.forEach((k, v) -> pairs.add(java.util.Arrays.asList(k, v)));
            }
            return pairs;
        }
    }

    /** Jinja's {@code string} filter is Python's str() ({@link PyRepr}), not Java's toString. */
    private static final class PyString implements Filter {
        @Override
        public String getName() {
            return "string";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return PyRepr.str(var);
        }
    }
}
