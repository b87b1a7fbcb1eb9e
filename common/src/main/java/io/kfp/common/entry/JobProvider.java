package io.kfp.common.entry;

/**
 * How tools find a job: each job module names its provider in {@code
 * META-INF/services/io.kfp.common.entry.JobProvider} (the {@link java.util.ServiceLoader} format),
 * and kfp reads that file from the built job jar.
 *
 * <pre>{@code
 * public static final class Provider implements JobProvider {
 *     public JobSpec spec() {
 *         return RelayJob.SPEC;
 *     }
 * }
 * }</pre>
 */
public interface JobProvider {

    /** The file a job module keeps its provider's class name in. */
    String SERVICE_FILE = "META-INF/services/" + JobProvider.class.getName();

    JobSpec spec();
}
