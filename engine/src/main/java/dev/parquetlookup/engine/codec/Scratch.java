package dev.parquetlookup.engine.codec;

/**
 * Byte arrays one lookup borrows (from {@link ScratchBuffers}) for the pages and row positions it
 * decodes: whatever is decoded into them must not outlive the lookup. A lookup's context hands them
 * out; page decoding asks for them through this interface only.
 */
@FunctionalInterface
public interface Scratch {

    /** An array of at least {@code size} bytes, this lookup's until it ends. */
    byte[] scratch(int size);
}
