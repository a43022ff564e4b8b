package io.rkllm.server.template;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The template rewrites find a call's arguments and a loop's filter outside string literals. A string ending in
 * an escaped backslash ({@code '\\'}) used to be taken as still open, as its last quote follows a backslash.
 */
class TemplateRewriteQuotesTest {
    @Test
    void namespaceArgumentsAreFoundPastAStringEndingInABackslash() {
        assertThat(JinjaChatTemplate.rewrite("{%- set ns = namespace(sep='\\\\', n=xs|length - 1) %}"))
                .isEqualTo("{%- set ns = namespace(sep=('\\\\'), n=(xs|length - 1)) %}");
        assertThat(JinjaChatTemplate.rewrite("{% set ns = namespace(a='x,)', b=[1, 2]|length) %}"))
                .isEqualTo("{% set ns = namespace(a=('x,)'), b=([1, 2]|length)) %}");
    }

    @Test
    void aLoopFilterIsFoundPastAStringEndingInABackslash() {
        String rewritten = JinjaChatTemplate.rewrite(
                "{% for x in xs + ['\\\\', ' if '] if x != 'a' %}{{ x }}{% endfor %}");
        assertThat(rewritten).contains("{% for x in xs + ['\\\\', ' if '] %}").contains("if x != 'a'");
    }
}
