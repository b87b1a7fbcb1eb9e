package io.kfp.common.config;

import java.util.EnumSet;
import org.apache.flink.configuration.description.Description;
import org.apache.flink.configuration.description.Formatter;
import org.apache.flink.configuration.description.TextElement;

/** Renders an option's {@link Description} as plain text for {@code --help} and the README. */
public final class PlainTextFormatter extends Formatter {

    public static String render(Description description) {
        return new PlainTextFormatter().format(description);
    }

    @Override
    protected void formatLink(StringBuilder state, String link, String description) {
        state.append(description).append(" (").append(link).append(')');
    }

    @Override
    protected void formatLineBreak(StringBuilder state) {
        state.append('\n');
    }

    @Override
    protected void formatText(
            StringBuilder state,
            String format,
            String[] elements,
            EnumSet<TextElement.TextStyle> styles) {
        state.append(String.format(format, (Object[]) elements));
    }

    @Override
    protected void formatList(StringBuilder state, String[] entries) {
        for (String entry : entries) {
            state.append("\n  * ").append(entry);
        }
    }

    @Override
    protected Formatter newInstance() {
        return new PlainTextFormatter();
    }
}
