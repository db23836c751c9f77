//! Test blocks of Futhark test programs: parsed into data the conformance runner executes.
