# A small workspace for scenarios about the scan itself (locks, concurrent writers, failures).
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "name" {
  type = string
}

resource "aws_s3_bucket" "this" {
  bucket = var.name
  tags = {
    Owner = "platform"
  }
}
