package io.kfp.common.socket;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * One endpoint to read. Its checkpointed state is the endpoint alone: a socket cannot replay, so
 * there is no position to remember; a restored split simply reconnects.
 *
 * @param index the endpoint's position in the configured list, which decides its reader
 */
public record SocketSplit(int index, Endpoint endpoint) implements SourceSplit {

    @Override
    public String splitId() {
        return index + "@" + endpoint;
    }

    /** Version 1: index, host, port. */
    static final class Serializer implements SimpleVersionedSerializer<SocketSplit> {

        static final Serializer INSTANCE = new Serializer();

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(SocketSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(split, out);
            }
            return bytes.toByteArray();
        }

        @Override
        public SocketSplit deserialize(int version, byte[] serialized) throws IOException {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return read(version, in);
            }
        }

        static void write(SocketSplit split, DataOutputStream out) throws IOException {
            out.writeInt(split.index());
            out.writeUTF(split.endpoint().host());
            out.writeInt(split.endpoint().port());
        }

        static SocketSplit read(int version, DataInputStream in) throws IOException {
            if (version != 1) {
                throw new IOException("unknown socket split version " + version);
            }
            int index = in.readInt();
            String host = in.readUTF();
            int port = in.readInt();
            return new SocketSplit(index, new Endpoint(host, port));
        }
    }
}
