package dev.parquetlookup.engine.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Little-endian views of byte arrays, as Parquet stores PLAIN values, length prefixes and level
 * lengths (and as the decoders keep their int slots): {@code (int) LittleEndian.INT.get(bytes, at)}
 * reads the four bytes at {@code at}.
 */
final class LittleEndian {

    static final VarHandle INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private LittleEndian() {}
}
