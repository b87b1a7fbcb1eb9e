package io.kfp.common.config;

import java.util.List;
import java.util.stream.Collectors;

/** The user's settings are wrong: report every problem, exit 2, print no stack trace. */
public final class InvalidConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<ConfigProblem> problems;

    public InvalidConfigurationException(List<ConfigProblem> problems) {
        super(render(problems));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }

    private static String render(List<ConfigProblem> problems) {
        return problems.size()
                + (problems.size() == 1 ? " configuration error" : " configuration errors")
                + ":\n"
                + problems.stream()
                        .map(p -> "  - " + p.describe())
                        .collect(Collectors.joining("\n"));
    }
}
