package dev.tether.admin;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Starts Debian's Chromium and chromedriver, or skips the calling test with a message saying how to
 * run it. Both paths are given to Selenium, so it never tries to download a browser.
 */
final class HeadlessChromium {
  private static final Path BROWSER =
      Path.of(System.getProperty("tether.chromium", "/usr/bin/chromium"));
  private static final Path DRIVER =
      Path.of(System.getProperty("tether.chromedriver", "/usr/bin/chromedriver"));

  /** The skip is said once per run, not once per test. */
  private static boolean skipAnnounced;

  private HeadlessChromium() {}

  /** A 1280x900 headless browser; skips the test (JUnit assumption) when Chromium is absent. */
  static ChromeDriver startOrSkip() {
    boolean present = Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
    String why =
        "browser test skipped: no Chromium at "
            + BROWSER
            + " or no chromedriver at "
            + DRIVER
            + "; to run it, `apt-get install -y chromium chromium-driver` (Debian) or point"
            + " -Dtether.chromium and -Dtether.chromedriver at them";
    if (!present && !skipAnnounced) {
      skipAnnounced = true;
      System.out.println("[tether-admin] " + why);
    }
    assumeTrue(present, why);
    ChromeOptions options =
        new ChromeOptions()
            .setBinary(BROWSER.toFile())
            // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
            .addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1280,900");
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build();
    return new ChromeDriver(service, options);
  }
}
