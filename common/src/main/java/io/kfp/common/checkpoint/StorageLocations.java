package io.kfp.common.checkpoint;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** Checkpoint and savepoint locations as Flink wants them: absolute URIs. */
public final class StorageLocations {

    private StorageLocations() {}

    /**
     * A URI with a scheme (file, hdfs, s3, ...) is kept as given; a plain path becomes an absolute
     * {@code file://} URI, resolved against the current directory.
     */
    public static URI toUri(String location) throws URISyntaxException {
        if (location.matches("^[A-Za-z][A-Za-z0-9+.-]*:/.*")) {
            URI uri = new URI(location);
            if (uri.getScheme().equalsIgnoreCase("file")) {
                boolean localHost = uri.getHost() == null || uri.getHost().equals("localhost");
                if (!localHost || uri.getPath() == null || !uri.getPath().startsWith("/")) {
                    throw new IllegalArgumentException(
                            "a file URI needs an absolute path after file:// (three slashes in"
                                    + " all, e.g. file:///data/ckpt)");
                }
            }
            return uri;
        }
        return Path.of(location).toAbsolutePath().normalize().toUri();
    }
}
