package io.kfp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReadmeSectionTest {

    @Test
    void replacesOnlyWhatIsBetweenItsMarkers() {
        String readme =
                "intro\n<!-- a:begin -->\nold a\n<!-- a:end -->\nmiddle\n"
                        + "<!-- b:begin -->\nold b\n<!-- b:end -->\nend\n";

        String updated = ReadmeSection.replaced(readme, "b", "| new | table |");

        assertThat(updated)
                .isEqualTo(
                        "intro\n<!-- a:begin -->\nold a\n<!-- a:end -->\nmiddle\n"
                                + "<!-- b:begin -->\n| new | table |\n<!-- b:end -->\nend\n");
        assertThat(ReadmeSection.replaced(updated, "b", "| new | table |\n")).isEqualTo(updated);
    }

    @Test
    void aReadmeWithoutTheMarkersIsRefusedNamingThem() {
        assertThatThrownBy(() -> ReadmeSection.replaced("no markers\n", "socket-results", "x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("<!-- socket-results:begin -->");
    }
}
