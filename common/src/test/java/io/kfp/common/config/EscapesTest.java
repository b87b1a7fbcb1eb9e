package io.kfp.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EscapesTest {

    @Test
    void knownEscapesBecomeCharactersOthersStayAsTyped() {
        assertThat(Escapes.unescape("\\t|\\n|\\r|\\\\")).isEqualTo("\t|\n|\r|\\");
        assertThat(Escapes.unescape("a\\qb\\")).isEqualTo("a\\qb\\");
        assertThat(Escapes.unescape("plain")).isEqualTo("plain");
    }
}
