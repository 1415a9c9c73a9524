package dev.tether.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** An in-memory system that answers every call on one executor thread, in one of a few scripted ways. */
final class FakeSystem implements BenchSystem {

    enum Behaviour {
        /** Answers with a copy of the request. */
        ECHO,
        /** Answers with a response one byte short. */
        TRUNCATE,
        /** Fails every call. */
        FAIL,
        /** Never answers. */
        SILENT,
        /** Cannot start. */
        BROKEN
    }

    private final Behaviour behaviour;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    FakeSystem(Behaviour behaviour) {
        this.behaviour = behaviour;
    }

    static SystemSpec spec(String family, String setting, Behaviour behaviour) {
        Supplier<BenchSystem> factory = () -> new FakeSystem(behaviour);
        return new SystemSpec(family, setting, factory);
    }

    @Override
    public void start() {
        if (behaviour == Behaviour.BROKEN) {
            throw new IllegalStateException("scripted start failure");
        }
    }

    @Override
    public void call(byte[] payload, ResponseHandler handler) {
        switch (behaviour) {
            case ECHO -> executor.execute(() -> handler.onResponse(payload.clone()));
            case TRUNCATE -> executor.execute(() -> handler.onResponse(new byte[payload.length - 1]));
            case FAIL -> executor.execute(() -> handler.onFailure(new IllegalStateException("scripted failure")));
            case SILENT, BROKEN -> { }
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
