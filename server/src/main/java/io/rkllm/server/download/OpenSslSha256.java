package io.rkllm.server.download;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * SHA-256 by the system's OpenSSL ({@code libcrypto}, through the FFM API), where there is one. The JDK's SHA-256 is
 * as fast only once C2 has compiled it into the CPU's SHA instructions; the service runs on the client compiler alone
 * ({@code -XX:TieredStopAtLevel=1} in rkllm-server.service, for its footprint), where the JDK's hashes at about 140
 * MB/s on the x86_64 VM: a pull through the service took 9 s of CPU per GiB, all of it the digest, slower than a
 * gigabit link. libcrypto picks the SHA instructions (x86 SHA-NI, the ARMv8 crypto extensions of the RK3588's and
 * RK3576's cores) whatever the JVM's compilers, and in a short-lived {@code pull} there is no compilation to wait
 * for. The bytes are passed from the Java array without a copy (a critical downcall: 128 KB take about 70 µs).
 */
final class OpenSslSha256 extends MessageDigest {
    private static final List<String> LIBRARIES = List.of("libcrypto.so.3", "libcrypto.so", "libcrypto.so.1.1");
    private static final Optional<Functions> FUNCTIONS = Functions.find();

    /** libcrypto's EVP digest calls, and its SHA-256. */
    private record Functions(MethodHandle newContext, MethodHandle freeContext, MethodHandle init,
                             MethodHandle update, MethodHandle finish, MemorySegment sha256) {
        static Optional<Functions> find() {
            Linker linker = Linker.nativeLinker();
            Linker.Option critical = Linker.Option.critical(true);
            for (String name : LIBRARIES) {
                try {
                    SymbolLookup lib = SymbolLookup.libraryLookup(name, Arena.global());
                    MethodHandle md = linker.downcallHandle(lib.findOrThrow("EVP_sha256"), FunctionDescriptor.of(ADDRESS));
                    MemorySegment sha256 = (MemorySegment) md.invokeExact();
                    if (sha256.equals(MemorySegment.NULL)) {
                        continue;
                    }
                    return Optional.of(new Functions(
                            linker.downcallHandle(lib.findOrThrow("EVP_MD_CTX_new"), FunctionDescriptor.of(ADDRESS)),
                            linker.downcallHandle(lib.findOrThrow("EVP_MD_CTX_free"),
                                    FunctionDescriptor.ofVoid(ADDRESS)),
                            linker.downcallHandle(lib.findOrThrow("EVP_DigestInit_ex"),
                                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)),
                            linker.downcallHandle(lib.findOrThrow("EVP_DigestUpdate"),
                                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), critical),
                            linker.downcallHandle(lib.findOrThrow("EVP_DigestFinal_ex"),
                                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), critical),
                            sha256));
                } catch (Throwable e) {
                    // not there, not OpenSSL, or native access refused: the next name, else the JDK's digest
                }
            }
            return Optional.empty();
        }
    }

    private final Functions f;
    private final MemorySegment context;

    private OpenSslSha256(Functions f) throws Throwable {
        super("SHA-256");
        this.f = f;
        MemorySegment raw = (MemorySegment) f.newContext().invokeExact();
        if (raw.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("EVP_MD_CTX_new failed");
        }
        MethodHandle free = f.freeContext();
        // freed when this digest is no longer reachable: a download given up on drops its digest without a word
        context = raw.reinterpret(Arena.ofAuto(), c -> {
            try {
                free.invokeExact(c);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        });
        start();
    }

    /** A new SHA-256 computation by libcrypto, or empty where there is none. */
    static Optional<MessageDigest> create() {
        if (FUNCTIONS.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new OpenSslSha256(FUNCTIONS.get()));
        } catch (Throwable e) {
            return Optional.empty();
        }
    }

    private void start() {
        try {
            check((int) f.init().invokeExact(context, f.sha256(), MemorySegment.NULL), "EVP_DigestInit_ex");
        } catch (Throwable e) {
            throw failure(e);
        }
    }

    @Override
    protected void engineUpdate(byte input) {
        engineUpdate(new byte[] {input}, 0, 1);
    }

    @Override
    protected void engineUpdate(byte[] input, int offset, int len) {
        if (len == 0) {
            return;
        }
        try {
            check((int) f.update().invokeExact(context, MemorySegment.ofArray(input).asSlice(offset, len), (long) len),
                    "EVP_DigestUpdate");
        } catch (Throwable e) {
            throw failure(e);
        }
    }

    @Override
    protected byte[] engineDigest() {
        byte[] out = new byte[32];
        try {
            check((int) f.finish().invokeExact(context, MemorySegment.ofArray(out), MemorySegment.NULL),
                    "EVP_DigestFinal_ex");
        } catch (Throwable e) {
            throw failure(e);
        }
        start();
        return out;
    }

    @Override
    protected int engineGetDigestLength() {
        return 32;
    }

    @Override
    protected void engineReset() {
        start();
    }

    private static void check(int result, String call) {
        if (result != 1) {
            throw new IllegalStateException(call + " failed");
        }
    }

    private static RuntimeException failure(Throwable e) {
        return e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
}
