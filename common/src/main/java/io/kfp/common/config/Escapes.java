package io.kfp.common.config;

/**
 * Escapes users type for invisible characters in settings: {@code \n}, {@code \r}, {@code \t},
 * {@code \\}.
 */
public final class Escapes {

    private Escapes() {}

    /** {@code typed} with each known escape replaced by its character; others kept as typed. */
    public static String unescape(String typed) {
        StringBuilder out = new StringBuilder(typed.length());
        for (int i = 0; i < typed.length(); i++) {
            char c = typed.charAt(i);
            if (c == '\\' && i + 1 < typed.length()) {
                char replacement =
                        switch (typed.charAt(i + 1)) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case '\\' -> '\\';
                            default -> 0;
                        };
                if (replacement != 0) {
                    out.append(replacement);
                    i++;
                    continue;
                }
            }
            out.append(c);
        }
        return out.toString();
    }
}
