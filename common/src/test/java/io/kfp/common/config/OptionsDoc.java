package io.kfp.common.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Keeps the option tables in the READMEs generated from the declarations. A README holds the table
 * between {@value #BEGIN} and {@value #END}; each module's docs test compares it with {@link
 * OptionsHelp#markdown} and, run with {@code -Dkfp.docs.update=true}, rewrites it.
 */
public final class OptionsDoc {

    public static final String BEGIN =
            "<!-- options:begin (generated from the option declarations; do not edit) -->";
    public static final String END = "<!-- options:end -->";

    private OptionsDoc() {}

    /** {@code document} with the text between the markers replaced by {@code generated}. */
    public static String withTable(String document, String generated) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(
                    "the document has no " + BEGIN + " ... " + END + " block");
        }
        return document.substring(0, begin + BEGIN.length())
                + "\n"
                + generated
                + document.substring(end);
    }

    /**
     * Checks that {@code readme}'s table is {@code generated}; rewrites it instead when the system
     * property {@code kfp.docs.update} is {@code true}.
     *
     * @return the up-to-date document text
     */
    public static String syncOrCompare(Path readme, String generated) throws IOException {
        String current = Files.readString(readme, StandardCharsets.UTF_8);
        String wanted = withTable(current, generated);
        if (Boolean.getBoolean("kfp.docs.update") && !wanted.equals(current)) {
            Files.writeString(readme, wanted, StandardCharsets.UTF_8);
            return wanted;
        }
        return wanted;
    }
}
