// The scanner's rules for Java: Runtime.exec and ProcessBuilder, java.net, JNI (native, System.loadLibrary)
// and the foreign-memory API, sun.misc.Unsafe and JDK internals, code compiled or run from strings,
// reflection, host paths, System.exit and System.getenv.
#include "analysis/c_family_rules.hpp"

namespace e2beval::detail {

namespace rules_java {

constexpr Language kJava = Language::java;

constexpr ModuleRule kModules[] = {
    {"java.lang.ProcessBuilder", "java-process", "starts other programs from generated code"},
    {"java.lang.ProcessHandle", "java-process", "reaches other processes"},
    {"java.lang.Runtime", "java-process", "Runtime.exec starts other programs"},
    {"java.net", "java-network", "network access from generated code"},
    {"javax.net", "java-network", "network access from generated code"},
    {"jdk.net", "java-network", "network access from generated code"},
    {"com.sun.net", "java-network", "network access from generated code"},
    {"java.nio.channels.SocketChannel", "java-network", "network access from generated code"},
    {"java.nio.channels.ServerSocketChannel", "java-network", "network access from generated code"},
    {"java.nio.channels.DatagramChannel", "java-network", "network access from generated code"},
    {"java.nio.channels.AsynchronousSocketChannel", "java-network", "network access from generated code"},
    {"java.lang.foreign", "java-jni", "calls native code and reads raw memory"},
    {"sun.misc", "java-unsafe", "raw memory around the JVM's safety"},
    {"sun.", "java-unsafe", "the JDK's internals"},
    {"jdk.internal", "java-unsafe", "the JDK's internals"},
    {"com.sun.tools.attach", "java-unsafe", "attaches to other JVMs"},
    {"java.lang.instrument", "java-unsafe", "rewrites loaded classes"},
    {"javax.script", "java-eval", "runs code from strings"},
    {"javax.tools", "java-eval", "compiles code from strings"},
    {"jdk.jshell", "java-eval", "runs code from strings"},
    {"java.lang.invoke", "java-reflection", "method handles reach code by name"},
};

constexpr NameRule kNames[] = {
    {"exec", NameUse::member_call, "java-process", "starts another program (Runtime.exec)"},
    {"ProcessBuilder", NameUse::any, "java-process", "starts other programs"},
    {"ProcessHandle", NameUse::any, "java-process", "reaches other processes"},
    {"native", NameUse::any, "java-jni", "declares a method implemented in native code"},
    {"System.loadLibrary", NameUse::call, "java-jni", "loads native code"},
    {"System.load", NameUse::call, "java-jni", "loads native code"},
    {"loadLibrary", NameUse::member_call, "java-jni", "loads native code"},
    {"Class.forName", NameUse::call, "java-reflection", "loads a class by name"},
    {"loadClass", NameUse::member_call, "java-reflection", "loads a class by name"},
    {"setAccessible", NameUse::member_call, "java-reflection", "opens private members to reflection"},
    {"getDeclaredMethod", NameUse::member_call, "java-reflection", "finds a method by name"},
    {"getDeclaredField", NameUse::member_call, "java-reflection", "finds a field by name"},
    {"getDeclaredConstructor", NameUse::member_call, "java-reflection", "finds a constructor to call by reflection"},
    {"MethodHandles", NameUse::any, "java-reflection", "reaches code by name"},
    {"System.exit", NameUse::call, "java-exit", "ends the program, with any status, before the tests are done"},
    {"halt", NameUse::member_call, "java-exit", "ends the program, with any status, before the tests are done"},
    {"System.getenv", NameUse::call, "java-env", "reads the environment (the sandbox passes no secrets unless asked)"},
};

static_assert(all_rules_of(kModules, kJava) && all_rules_of(kNames, kJava));

// Class.forName("java.lang.Runtime"), loader.loadClass("..."), getMethod("exec"): the name is read as written out.
constexpr std::string_view kLookups[] = {"forName", "loadClass", "getMethod", "getDeclaredMethod", "findClass",
                                          "findStatic", "findVirtual"};

}  // namespace rules_java

const CFamilyRules& java_rules() {
    using namespace rules_java;
    static const CFamilyRules rules{kJava, CDialect::java, kModules, kNames, true, "java-system-path",
                                    kLookups, "java-reflection", nullptr};
    return rules;
}

}  // namespace e2beval::detail
