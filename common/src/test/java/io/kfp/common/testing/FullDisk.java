package io.kfp.common.testing;

import java.io.IOException;
import java.io.OutputStream;

/** An output stream like a full disk or a closed pipe under System.out: every write fails. */
public final class FullDisk {

    private FullDisk() {}

    public static OutputStream stream() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        };
    }
}
