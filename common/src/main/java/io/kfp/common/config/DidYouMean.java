package io.kfp.common.config;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Suggests the declared key a mistyped one was most likely meant to be. */
public final class DidYouMean {

    private DidYouMean() {}

    /**
     * The closest of {@code known} to {@code typed}: by edit distance (at most a third of the key's
     * length), or the unique key that ends with what was typed (a forgotten prefix such as {@code
     * interval} for {@code checkpoint.interval}).
     */
    public static Optional<String> suggest(String typed, Collection<String> known) {
        String wanted = typed.toLowerCase(Locale.ROOT).replace('_', '-');
        Optional<String> close = typoOf(wanted, known, Math.max(2, wanted.length() / 3));
        if (close.isPresent()) {
            return close;
        }
        String suffix = "." + wanted;
        List<String> endingWithTyped =
                known.stream().filter(k -> k.toLowerCase(Locale.ROOT).endsWith(suffix)).toList();
        return endingWithTyped.size() == 1 ? Optional.of(endingWithTyped.get(0)) : Optional.empty();
    }

    /** The known name at most {@code maxEdits} letters from {@code typed} (a typo), if one is. */
    public static Optional<String> typoOf(String typed, Collection<String> known, int maxEdits) {
        String wanted = typed.toLowerCase(Locale.ROOT);
        return known.stream()
                .filter(k -> distance(wanted, k.toLowerCase(Locale.ROOT)) <= maxEdits)
                .min(Comparator.comparingInt(k -> distance(wanted, k.toLowerCase(Locale.ROOT))));
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
