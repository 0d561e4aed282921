package org.cnxsim.oracle;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Calls into Pulsar by name. The launcher is compiled with no Pulsar on its
 * classpath, so one jar drives every pinned release: signatures that drift
 * between releases (PulsarService.close() return types, the BKCluster builder,
 * LocalBookkeeperEnsemble's constructors) are looked up at run time, and a
 * missing one is a clear error naming the class and method.
 */
final class Reflect {
    private Reflect() {
    }

    /** The class of that name on the broker's classpath, or null when this release has none. */
    static Class<?> findClass(String name) {
        try {
            return Class.forName(name, false, Reflect.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    static Class<?> requireClass(String name) {
        Class<?> c = findClass(name);
        if (c == null) {
            throw new IllegalStateException("class " + name + " is not on this release's classpath");
        }
        return c;
    }

    /** Calls the public method NAME of TARGET whose parameters accept ARGS. */
    static Object call(Object target, String name, Object... args) throws Exception {
        return invoke(target.getClass(), target, name, args);
    }

    /** Calls the public static method NAME of TYPE whose parameters accept ARGS. */
    static Object callStatic(Class<?> type, String name, Object... args) throws Exception {
        return invoke(type, null, name, args);
    }

    /** True when TYPE has a public method NAME taking ARGCOUNT parameters. */
    static boolean hasMethod(Class<?> type, String name, int argCount) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == argCount) {
                return true;
            }
        }
        return false;
    }

    /** A new TYPE from the public constructor whose parameters accept ARGS. */
    static Object construct(Class<?> type, Object... args) throws Exception {
        for (Constructor<?> c : type.getConstructors()) {
            if (accepts(c.getParameterTypes(), args)) {
                return unwrap(() -> c.newInstance(args));
            }
        }
        throw new NoSuchMethodException(type.getName() + " has no public constructor for " + args.length + " such arguments");
    }

    private static Object invoke(Class<?> type, Object target, String name, Object[] args) throws Exception {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && accepts(m.getParameterTypes(), args)) {
                return unwrap(() -> m.invoke(target, args));
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + name + " with " + args.length + " such arguments");
    }

    private interface Call {
        Object run() throws Exception;
    }

    /** Runs CALL and rethrows what the called code threw, not the reflection wrapper. */
    private static Object unwrap(Call call) throws Exception {
        try {
            return call.run();
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }

    private static boolean accepts(Class<?>[] params, Object[] args) {
        if (params.length != args.length) {
            return false;
        }
        for (int i = 0; i < params.length; i++) {
            if (args[i] != null && !box(params[i]).isInstance(args[i])) {
                return false;
            }
        }
        return true;
    }

    private static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == int.class) {
            return Integer.class;
        }
        if (c == boolean.class) {
            return Boolean.class;
        }
        if (c == long.class) {
            return Long.class;
        }
        if (c == double.class) {
            return Double.class;
        }
        return c;
    }
}
