package dev.tether;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.properties.HasModifiers.Predicates.modifier;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.tether.client.ConnectionSupervisor;
import dev.tether.client.ProxySettings;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The import rules of docs/architecture.md, section 2, as the build checks them: each test is one
 * rule of that page, worded as it is there, and fails naming every class that breaks it.
 */
class ImportRulesTest {
  private static final String FACE = "dev.tether";
  private static final String SPI = "dev.tether.spi";
  private static final String OBSERVE = "dev.tether.observe";

  /** The packages below the face, in the order of the page's table: imports point down it. */
  private static final List<String> BELOW =
      List.of(
          "dev.tether.cluster",
          "dev.tether.client",
          "dev.tether.server",
          "dev.tether.stream",
          "dev.tether.codec",
          "dev.tether.protocol",
          "dev.tether.transport",
          "dev.tether.internal");

  private static JavaClasses core;

  @BeforeAll
  static void importCoreMainClasses() throws URISyntaxException {
    // Main classes only, from where the module's classes are: its tests may use anything.
    Location main =
        Location.of(Tether.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    core = new ClassFileImporter().importLocations(Set.of(main));
  }

  @Test
  void nothingBelowTheFaceCallsItsEntryPoints() {
    noClasses()
        .that()
        .resideOutsideOfPackage(FACE)
        .should()
        .dependOnClassesThat(belongToAnyOf(Tether.class, TetherServer.class, Proxy.class))
        .because("the entry points assemble and call the packages below; nothing calls back")
        .check(core);
  }

  @Test
  void importsBelowTheFacePointDownThePackageTable() {
    for (int i = 1; i < BELOW.size(); i++) {
      noClasses()
          .that()
          .resideInAPackage(BELOW.get(i))
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(BELOW.subList(0, i).toArray(String[]::new))
          .because("below the face, imports point down the table of packages, never up")
          .check(core);
    }
  }

  @Test
  void clientAndServerNeverImportEachOther() {
    noClasses()
        .that()
        .resideInAPackage("dev.tether.client")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tether.server")
        .check(core);
    noClasses()
        .that()
        .resideInAPackage("dev.tether.server")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tether.client")
        .check(core);
  }

  @Test
  void clusterUsesClientOnlyThroughItsInterfacesValuesAndSupervisor() {
    DescribedPredicate<JavaClass> clientInterfaceOrValue =
        new DescribedPredicate<>("an interface, record or enum of client") {
          @Override
          public boolean test(JavaClass c) {
            return c.isInterface() || c.isRecord() || c.isEnum();
          }
        };
    noClasses()
        .that()
        .resideInAPackage("dev.tether.cluster")
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.tether.client")
                .and(not(clientInterfaceOrValue))
                .and(not(belongToAnyOf(ConnectionSupervisor.class, ProxySettings.class))))
        .check(core);
  }

  @Test
  void streamImportsOnlyThePublicPackagesProtocolAndInternal() {
    importsOnly("dev.tether.stream", "dev.tether.protocol", "dev.tether.internal");
  }

  @Test
  void protocolKnowsNeitherSideAndImportsOnlyTheFace() {
    onlyTetherImportsOf("dev.tether.protocol", FACE, "dev.tether.protocol");
  }

  @Test
  void transportAndCodecImportOnlyTheFaceAndSpi() {
    onlyTetherImportsOf("dev.tether.transport", FACE, SPI, "dev.tether.transport");
    onlyTetherImportsOf("dev.tether.codec", FACE, SPI, "dev.tether.codec");
  }

  @Test
  void internalImportsOnlyTheFaceSpiAndObserve() {
    onlyTetherImportsOf("dev.tether.internal", FACE, SPI, OBSERVE, "dev.tether.internal");
  }

  @Test
  void publicPackagesImportOnlyEachOther() {
    for (String pkg : List.of(SPI, OBSERVE)) {
      onlyTetherImportsOf(pkg, FACE, SPI, OBSERVE);
    }
  }

  @Test
  void publicSignaturesOfTheExportedPackagesNameNoInsideType() {
    members()
        .that()
        .areDeclaredInClassesThat(
            resideInAnyPackage(FACE, SPI, OBSERVE).and(modifier(JavaModifier.PUBLIC)))
        .and(modifier(JavaModifier.PUBLIC).or(modifier(JavaModifier.PROTECTED)))
        .should(nameOnlyExportedTypes())
        .because("only dev.tether, spi and observe are exported: a user sees nothing else")
        .check(core);
  }

  @Test
  void nothingInCoreImportsAnotherModule() {
    List<String> corePackages = new ArrayList<>(List.of(FACE, SPI, OBSERVE));
    corePackages.addAll(BELOW);
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.tether..")
                .and(not(resideInAnyPackage(corePackages.toArray(String[]::new)))))
        .check(core);
  }

  /** Classes of {@code pkg} use only the public packages and {@code allowed} of tether's. */
  private static void importsOnly(String pkg, String... allowed) {
    List<String> all = new ArrayList<>(List.of(FACE, SPI, OBSERVE, pkg));
    all.addAll(Arrays.asList(allowed));
    onlyTetherImportsOf(pkg, all.toArray(String[]::new));
  }

  private static void onlyTetherImportsOf(String pkg, String... allowed) {
    noClasses()
        .that()
        .resideInAPackage(pkg)
        .should()
        .dependOnClassesThat(resideInAPackage("dev.tether..").and(resideOutsideOfPackages(allowed)))
        .check(core);
  }

  private static DescribedPredicate<JavaClass> resideOutsideOfPackages(String... packages) {
    DescribedPredicate<JavaClass> outside = resideOutsideOfPackage(packages[0]);
    for (int i = 1; i < packages.length; i++) {
      outside = outside.and(resideOutsideOfPackage(packages[i]));
    }
    return outside.as("reside outside of %s", Arrays.toString(packages));
  }

  private static ArchCondition<JavaMember> nameOnlyExportedTypes() {
    return new ArchCondition<>("name only types of the exported packages or outside tether") {
      @Override
      public void check(JavaMember member, ConditionEvents events) {
        List<JavaType> named = new ArrayList<>();
        if (member instanceof JavaCodeUnit unit) {
          named.add(unit.getReturnType());
          named.addAll(unit.getParameterTypes());
        } else if (member instanceof JavaField field) {
          named.add(field.getType());
        }
        Set<JavaClass> raw = new HashSet<>();
        named.forEach(type -> raw.addAll(type.getAllInvolvedRawTypes()));
        for (JavaClass type : raw) {
          boolean inside =
              type.getPackageName().startsWith("dev.tether.")
                  && !Set.of(SPI, OBSERVE).contains(type.getPackageName());
          if (inside) {
            events.add(
                SimpleConditionEvent.violated(
                    member, member.getFullName() + " names " + type.getName()));
          }
        }
      }
    };
  }
}
