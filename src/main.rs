fn main() {
    println!("ssdlab: in progress");
}
