package dev.parquetlookup.io.disk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * How the disk tier writes a range into a segment file: the one place a full disk shows up. {@link
 * #DIRECT} writes through the channel; tests substitute one that fails like a full disk ({@code
 * (channel, bytes, position) -> { throw new IOException("No space left on device"); }}) without
 * filling a real one.
 */
@FunctionalInterface
interface DiskWrites {

    DiskWrites DIRECT =
            (channel, bytes, position) -> {
                long at = position;
                while (bytes.hasRemaining()) {
                    at += channel.write(bytes, at);
                }
            };

    /** Writes all of {@code bytes} at {@code position}, or throws. */
    void write(FileChannel channel, ByteBuffer bytes, long position) throws IOException;
}
