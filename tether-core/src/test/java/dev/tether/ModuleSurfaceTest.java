package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ModuleSurfaceTest {
  @Test
  void exportsOnlyTheApiTheExtensionPointsAndObservability() throws Exception {
    Path classes =
        Path.of(Tether.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ModuleDescriptor module = ModuleFinder.of(classes).findAll().iterator().next().descriptor();

    Set<String> exported =
        module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());

    assertThat(module.name()).isEqualTo("dev.tether.core");
    assertThat(exported)
        .containsExactlyInAnyOrder("dev.tether", "dev.tether.spi", "dev.tether.observe");
  }
}
