package io.rkllm.rag;

import java.util.regex.Pattern;

/**
 * Recognises lines of source code, shell sessions and markup in a page's text (the content of a
 * {@code <pre>} block once Open WebUI has flattened the page). A line is <em>strong</em> code when its
 * syntax leaves no doubt (a statement ending in {@code ;}, an assignment, a call at the start of the
 * line, a shell prompt, an import, a tag); it is <em>compatible</em> with code when it could sit inside a
 * code block (a comment, a closing brace, program output, an identifier) without being a sentence of
 * prose. {@link CodeBlocks} groups them into blocks. Every test is on the line's own shape: no site or
 * page is named.
 */
final class CodeLines {
    private CodeLines() {
    }

    /** Shell and REPL prompts and preprocessor lines: code whatever follows. */
    private static final Pattern PROMPT = Pattern.compile(
            "^(?:\\$ (?:sudo )?[a-z./~]|>>> |\\.\\.\\. \\S|[a-z]{2,8}> \\S|PS [A-Z]:\\\\|[A-Z]:\\\\[^ ]*> ?\\S|#!/"
            + "|#(?:include|define|import|pragma|ifn?def|endif)\\b)");

    /** Comment lines of the usual languages ("# comment" needs a space, so that #hashtags are not taken). */
    private static final Pattern COMMENT = Pattern.compile("^(?://|/\\*|\\*/|<!--|-->|#+ |#>|#$|;; |-- [a-z])");

    /** A line made of closing or opening brackets and separators: "}", "});", "],", "{". */
    private static final Pattern BRACES = Pattern.compile("^(?:[\\[\\](){};,.:]*[{};][\\[\\](){};,.:]*|[\\])]+[,;]?)$");

    /** Assignment to an identifier, an attribute or an item: "x = 1", "self.a += b", "let x = y", "a := f()". */
    private static final Pattern ASSIGNMENT = Pattern.compile(
            "^(?:(?:var|let|const|val|final|auto|int|long|double|float|char|bool|boolean|string|String|my|local|export|set)\\s+)?"
            + "(?:[a-z_$][\\w$]*\\s*:\\s*[\\w\\[\\]|. ]{1,40}?|[A-Za-z_$][\\w$]*(?:(?:\\.|->|::)[A-Za-z_$][\\w$]*|\\[[^\\]]{0,40}\\])*)"
            + "\\s*(?:=|:=|\\+=|-=|\\*=|/=|\\|=|&=|\\?\\?=|<-)\\s*[^=\\s]");

    /** A call or a chain of calls at the start of the line: "print(x)", "fs.stat(", "$('a').hide()". */
    private static final Pattern CALL_START = Pattern.compile(
            "^(?:await\\s+|new\\s+|return\\s+|yield\\s+)?[A-Za-z_$][\\w$]*(?:(?:\\.|::|->)[A-Za-z_$][\\w$]*)*(?:<[\\w, ]*>)?\\((?!s\\))");

    /** Control statements: the keyword is followed by "(" or the line ends as a block opens ("for x in y:", "} else {"). */
    private static final Pattern CONTROL = Pattern.compile(
            "^(?:if|elif|else|for|foreach|while|switch|case|try|catch|except|finally|with|do|unless|until)(?:\\s*\\(|\\b.{0,80}[:{]$)");

    /** Declarations and statements: the keyword, names, then an opening bracket without a space ("return f(x)", "def g(a):"). */
    private static final Pattern DECLARATION = Pattern.compile(
            "^(?:def|class|fn|func|function|pub|public|private|protected|internal|static|final|abstract|override|struct|enum"
            + "|impl|trait|interface|package|namespace|module|extern|unsafe|typedef|template|lambda|async|await|var|let|const"
            + "|val|return|throw|raise|yield|echo|print|printf|puts|require|export|new|void|int|char|bool|auto)"
            + "(?:\\s+[\\w$.<>\\[\\],*&]+)*[(<{\\[](?!s\\))");

    /** "import x", "import x from 'y';", "from a.b import c", "require('x')". */
    private static final Pattern IMPORT = Pattern.compile(
            "^(?:import\\s+[\\w.{}*, ]+(?:\\s+(?:from|as)\\s+\\S+)?\\s*;?|from\\s+[\\w.]+\\s+import\\s+.+|use\\s+[\\w:]+(?:::\\{[^}]*\\})?;)$");

    /**
     * Command-line tools: a line starting with one runs it when a subcommand ("pip install", "git clone")
     * or shell syntax follows (see {@link #SHELL}, {@link #ENGLISH_TOOL}).
     */
    private static final Pattern TOOL = Pattern.compile(
            "^(?:sudo\\s+)?(?:npm|npx|yarn|pnpm|pip|pip3|pipx|python3?|py|node|deno|bun|git|svn|hg|curl|wget|docker|podman"
            + "|kubectl|helm|apt|apt-get|dpkg|yum|dnf|pacman|brew|cargo|rustc|rustup|javac|mvn|mvnw|gradle|gradlew|cmake"
            + "|gcc|g\\+\\+|clang|chmod|chown|mkdir|rmdir|tar|unzip|ssh|scp|rsync|conda|virtualenv|pyenv|poetry|pipenv|uv"
            + "|systemctl|journalctl|grep|sed|awk|xargs|ls|cd|rm|cp|mv|ln|ps|kill|gem|bundle|rails|rake|composer|dotnet"
            + "|ffmpeg|ffprobe|openssl|gpg|adb|fastboot|pytest|tox|black|ruff|mypy|eslint|tsc|go|java|make|cat|echo|export"
            + "|source|man|find|date|printf|touch|head|tail|less|diff|patch|which|env|nohup|time|watch)\\s+\\S");

    /** The command names above that are also English words ("date", "find", "make"): only shell syntax makes them commands. */
    private static final Pattern ENGLISH_TOOL = Pattern.compile(
            "^(?:go|java|make|cat|echo|export|source|man|find|date|printf|touch|head|tail|less|diff|patch|which|env|time|watch"
            + "|kill|ps|cd|ls|rm|cp|mv|ln|py|uv|black|tox|gem|bundle|rake|helm|apt|sed|awk|grep)\\s");

    /** A tool's usual subcommands ("pip install x", "git clone y"): without them a line of tool names is a list of tags. */
    private static final Pattern SUBCOMMAND = Pattern.compile("^(?:sudo\\s+)?\\S+\\s+(?:install|uninstall|i|add|remove|rm|run|build|init"
            + "|new|clone|push|pull|fetch|commit|checkout|switch|merge|rebase|status|log|diff|start|stop|restart|test|exec|update"
            + "|upgrade|list|ls|show|config|create|delete|get|set|version|help|freeze|search|info|publish|login|serve|deploy"
            + "|compose|ps|images|apply|describe|logs|venv|shell|lock|sync|tag|branch|remote|stash|reset|add|env|-\\S*)\\b");

    /** What makes a command line of a word like "date" or "find": an option, a path, a pipe, a redirection, a variable. */
    private static final Pattern SHELL = Pattern.compile("\\s--?\\w|/|\\||>|\\$|=|~|\\*|'");

    /** A line of markup: tags only ("<div class=\"a\">", "</wasm-module>", "<ul> List of <li>"), or a tag's quoted attributes. */
    private static final Pattern TAG = Pattern.compile("^</?[A-Za-z?!][\\w:.-]*(?:\\s[^>]*)?/?>(?:.*>)?$"
            + "|^<[A-Za-z][\\w-]*(?:\\s+[\\w:-]+=\"[^\"]*\")+\\s*/?>?$");

    /** A JSON or YAML entry: "\"key\": value", "key: value" with a lower-case key and a value that is not a plain word. */
    private static final Pattern ENTRY = Pattern.compile("^[\"'][\\w$@.:/#-]{1,60}[\"']\\s*:\\s*\\S"
            + "|^-?\\s*[a-z_][\\w.-]{0,40}:\\s+(?=[^ ]*[\\d\"'\\[{$./_])[^ ]+$|^-?\\s*[a-z][a-z]*[_.][\\w.]*:\\s+[^ ]+$");

    /** A line of a directory tree ("|-- bin/", "├── src"), a Dockerfile instruction ("RUN pip install -r x"), a Rust attribute. */
    private static final Pattern LISTING = Pattern.compile("^[|│├└` ]*(?:\\|--|[├└]──)|^#!?\\[[\\w(), =\":./-]+\\]$"
            + "|^(?:FROM|RUN|CMD|COPY|ADD|WORKDIR|ENV|EXPOSE|ENTRYPOINT|ARG|USER|VOLUME|LABEL)\\s+\\S*[:/$\\[.=-]");

    /** The last line of a traceback: "TypeError: Again", "java.io.IOException: closed". */
    private static final Pattern EXCEPTION = Pattern.compile("^[\\w.$]*(?:Error|Exception|Warning|Panic|Fault)(?::|$)");

    /** Characters that prose uses rarely and code often. */
    private static final String CODE_CHARS = "{}[]();=<>$|&\\_`#*~^@";

    /** Whether the line is certainly code (and not a sentence that quotes some). */
    static boolean strong(String s) {
        if (s.length() < 2 || s.length() > 400) {
            return false;
        }
        if (PROMPT.matcher(s).lookingAt() || s.startsWith("% ") && TOOL.matcher(s.substring(2)).lookingAt()) {
            return true;
        }
        if (BRACES.matcher(s).matches() || TAG.matcher(s).lookingAt() || LISTING.matcher(s).lookingAt()) {
            return true;
        }
        // the syntax first (most lines have none), then whether it is a sentence that merely quotes code
        return syntax(s) && !prose(s) && !(s.endsWith(".") && !s.endsWith("..") && Scripts.countWords(s) >= 4);
    }

    private static boolean syntax(String s) {
        char last = s.charAt(s.length() - 1);
        if ((last == ';' && hasCodeChar(s.substring(0, s.length() - 1))) || last == '{'
                || (last == '(' || last == '[') && s.length() > 2) {
            return true;
        }
        if (IMPORT.matcher(s).matches() || ASSIGNMENT.matcher(s).lookingAt() || CALL_START.matcher(s).lookingAt()
                || CONTROL.matcher(s).lookingAt() || DECLARATION.matcher(s).lookingAt()) {
            return true;
        }
        if (TOOL.matcher(s).lookingAt() && !SentenceMeasures.hasSentencePunctuation(s)
                && (SHELL.matcher(s).find() || !ENGLISH_TOOL.matcher(s).lookingAt() && SUBCOMMAND.matcher(s).lookingAt())) {
            return true;
        }
        return ENTRY.matcher(s).lookingAt() && !s.contains(". ");
    }

    /** A comment line of some programming language. */
    static boolean comment(String s) {
        return COMMENT.matcher(s).lookingAt();
    }

    /** A closing brace or the like: code, but no evidence of a block on its own. */
    static boolean braces(String s) {
        return BRACES.matcher(s).matches();
    }

    /** Whether the line can sit inside a code block: code, a comment, program output; not a sentence of prose. */
    static boolean compatible(String s) {
        if (s.isEmpty()) {
            return false;
        }
        if (strong(s) || comment(s)) {
            return true;
        }
        if (prose(s) || s.length() > 160 || Scripts.countCjk(s) >= 3) {
            return false; // Chinese or Japanese outside a statement is the article's prose
        }
        int first = s.codePointAt(0);
        return !Character.isUpperCase(first) || hasCodeChar(s) || !hasLetter(s) || s.indexOf(' ') < 0 && s.length() <= 40
                || EXCEPTION.matcher(s).lookingAt();
    }

    /** A sentence of prose: several words, a fair share of function words, and a sentence's end or length. */
    static boolean prose(String s) {
        if (comment(s) || PROMPT.matcher(s).lookingAt()) {
            return false;
        }
        int words = Scripts.countWords(s);
        if (words < 6) {
            return false;
        }
        char last = s.charAt(s.length() - 1);
        boolean ends = ".!?:。！？".indexOf(last) >= 0 || s.endsWith(".)");
        return (ends || s.length() >= 90) && Math.max(FunctionWords.density(s), SentenceMeasures.structuralDensity(s, words, true)) >= 0.25
                && countCodeChars(s) * 12 < s.length();
    }

    static boolean hasCodeChar(String s) {
        return countCodeChars(s) > 0;
    }

    static int countCodeChars(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (CODE_CHARS.indexOf(s.charAt(i)) >= 0) {
                n++;
            }
        }
        return n;
    }

    private static boolean hasLetter(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isLetter(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** A line that is only a line number (a code listing's gutter, extracted as a column of numbers). */
    static int lineNumber(String s) {
        if (s.isEmpty() || s.length() > 6) {
            return -1;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return -1;
            }
        }
        return Integer.parseInt(s);
    }
}
